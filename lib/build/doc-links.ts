import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// The repository's documentation must stand alone: every relative link in README.md, docs/**/*.md,
// examples/**/*.md and packages/*/README.md resolves to a file or folder of this repository, and nothing points
// outside it (a sibling checkout's `../shared`, or a machine's absolute `/work/...` or `/tmp/...`).

export interface DocLinkProblem {
  /** The linking file, relative to the root, with `/` separators. */
  file: string;
  line: number;
  /** The link target as written, or the offending text. */
  link: string;
  problem: "missing target" | "points outside the repository";
}

/** The documentation files checked: README.md, docs/**\/*.md, examples/**\/*.md, packages/*\/README.md. */
export function docFiles(root: string): string[] {
  const files: string[] = [];
  if (existsSync(path.join(root, "README.md"))) files.push("README.md");
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile() && entry.name.endsWith(".md")) files.push(rel);
    }
  };
  if (isDirectory(path.join(root, "docs"))) walk("docs");
  if (isDirectory(path.join(root, "examples"))) walk("examples");
  const packages = path.join(root, "packages");
  if (isDirectory(packages)) {
    for (const name of readdirSync(packages).sort()) {
      if (existsSync(path.join(packages, name, "README.md"))) files.push(`packages/${name}/README.md`);
    }
  }
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function isDirectory(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}

// `[text](target)` and `![alt](target)`, with an optional title; `<target>` allows spaces.
const LINK = /\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
// A path outside the repository: `../shared` anywhere, or an absolute /work/ or /tmp/ path.
const OUTSIDE = /\.\.\/shared\b|(?<![\w.~/-])\/(?:work|tmp)\//g;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** Blanks fenced code blocks and inline code spans, keeping offsets (and so line numbers). */
function withoutCode(text: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, blank).replace(/(`+)[^`\n]*?\1/g, blank);
}

function lineAt(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

/** Every broken relative link and every pointer outside the repository in the documentation. */
export function findDocLinkProblems(root: string): DocLinkProblem[] {
  const problems: DocLinkProblem[] = [];
  for (const file of docFiles(root)) {
    const text = readFileSync(path.join(root, file), "utf8");
    for (const match of text.matchAll(OUTSIDE)) {
      const end = text.slice(match.index).search(/[\s)`'"\]>]|$/);
      problems.push({
        file,
        line: lineAt(text, match.index),
        link: text.slice(match.index, match.index + end).replace(/[.,;:]+$/, ""),
        problem: "points outside the repository",
      });
    }
    const prose = withoutCode(text);
    for (const match of prose.matchAll(LINK)) {
      let target = match[1]!;
      if (target.startsWith("<")) target = target.slice(1, -1);
      if (target === "" || target.startsWith("#") || SCHEME.test(target)) continue;
      const line = lineAt(prose, match.index);
      if (target.startsWith("/")) {
        problems.push({ file, line, link: target, problem: "points outside the repository" });
        continue;
      }
      const hash = target.indexOf("#");
      const filePart = hash === -1 ? target : target.slice(0, hash);
      let decoded = filePart;
      try {
        decoded = decodeURIComponent(filePart);
      } catch {
        // a literal `%` in a file name: check it as written
      }
      const resolved = path.resolve(root, path.dirname(file), decoded);
      const inside = path.relative(root, resolved);
      if (inside.startsWith("..") || path.isAbsolute(inside)) {
        problems.push({ file, line, link: target, problem: "points outside the repository" });
      } else if (!existsSync(resolved)) {
        problems.push({ file, line, link: target, problem: "missing target" });
      }
    }
  }
  return problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
}

/** One line per problem, for a test failure or a script's output. */
export function formatDocLinkProblem(p: DocLinkProblem): string {
  return `${p.file}:${p.line}: ${p.problem}: ${p.link}`;
}
