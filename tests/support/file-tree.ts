import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/**
 * For a test file that checks a tool on made-up source trees: `tree(files)` writes one tree of
 * these files (name -> text) into a folder of its own and answers its path. Every tree of the
 * test file is removed after its last test.
 */
export function fileTrees(prefix: string): (files: Record<string, string>) => string {
  const scratch = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  return (files) => {
    const dir = mkdtempSync(path.join(scratch, "tree-"));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
    return dir;
  };
}
