// What the console does when nobody reads its stdout or stderr any more (the pipe's reader died:
// a log shipper that crashed, a parent killed without its children): it keeps serving, and its
// output to that stream is dropped from then on.
//
// Without this, the console spins. A write to a pipe whose reader is gone fails with EPIPE, which
// Node reports as an 'error' event on process.stdout / process.stderr; with no listener, that is an
// uncaught exception. Next installs an uncaughtException handler that logs the exception with
// console.error, to stderr, the dead pipe: that write fails with EPIPE too, its 'error' is uncaught,
// and so on, without end (about 1,500 failed writes a second and 0.9 of a core when first seen;
// scripts/fault-stdout-db.ts reproduces it). Any write after the reader went away starts it: an
// error Next logs while the database is gone. pino's own stream (lib/log.ts) already stops
// writing on EPIPE; console.* and process.std*.write do not.

const guarded = new WeakSet<NodeJS.WriteStream>();

/** Writes nothing; calls back as a successful write would, so callers waiting on it go on. */
function discard(this: NodeJS.WriteStream, ...args: unknown[]): boolean {
  const callback = args.find((arg): arg is (error?: Error | null) => void => typeof arg === "function");
  if (callback) process.nextTick(callback, null);
  return true;
}

/**
 * From the first error on `stream` (EPIPE, EIO for a terminal that went away, a destroyed stream),
 * every later write to it is dropped. The error itself is handled here, so it never becomes an
 * uncaught exception, which something would log, to a stream that cannot take it.
 */
export function dropOutputWhenItsReaderIsGone(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    stream.on("error", () => {
      stream.write = discard as NodeJS.WriteStream["write"];
    });
  }
}
