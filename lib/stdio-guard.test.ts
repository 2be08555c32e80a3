import { Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { dropOutputWhenItsReaderIsGone } from "./stdio-guard";

/** A stream like process.stderr once its pipe's reader is gone: every write fails with EPIPE. */
function brokenPipe(): { stream: NodeJS.WriteStream; attempts: () => number } {
  let attempts = 0;
  const stream = new Writable({
    write(_chunk, _encoding, callback) {
      attempts++;
      callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, attempts: () => attempts };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("dropOutputWhenItsReaderIsGone", () => {
  it("handles the EPIPE, so it is no uncaught exception, and writes nothing more to the stream", async () => {
    const { stream, attempts } = brokenPipe();
    const uncaught = vi.fn();
    process.on("uncaughtException", uncaught);
    try {
      dropOutputWhenItsReaderIsGone([stream]);
      stream.write("an error Next logs\n");
      await settle();
      const done = vi.fn();
      // What console.error and an uncaughtException handler logging with it do next.
      expect(stream.write("Error: write EPIPE\n", done)).toBe(true);
      stream.write("and more\n");
      await settle();
      expect(done).toHaveBeenCalledWith(null);
      expect(attempts()).toBe(1);
      expect(uncaught).not.toHaveBeenCalled();
    } finally {
      process.off("uncaughtException", uncaught);
    }
  });

  it("leaves a stream whose reader is there as it was", async () => {
    const written: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString());
        callback();
      },
    }) as unknown as NodeJS.WriteStream;
    dropOutputWhenItsReaderIsGone([stream]);
    dropOutputWhenItsReaderIsGone([stream]); // a second call adds nothing
    stream.write("a line\n");
    await settle();
    expect(written).toEqual(["a line\n"]);
    expect(stream.listenerCount("error")).toBe(1);
  });
});
