import path from "node:path";
import { describe, expect, it } from "vitest";
import { findDocLinkProblems, formatDocLinkProblem } from "./doc-links";
import { fileTrees } from "../../tests/support/file-tree";

const tree = fileTrees("rc-doc-links-");

describe("documentation links", () => {
  it("every relative link in README.md, docs/**/*.md, examples/**/*.md and packages/*/README.md resolves, and none leaves the repository", () => {
    const problems = findDocLinkProblems(path.resolve(import.meta.dirname, "../.."));
    expect(problems.map(formatDocLinkProblem)).toEqual([]);
  });

  it("names the file and the link of a missing target and of a pointer outside the repository", () => {
    const dir = tree({
      "README.md": [
        "See [the contract](docs/contract.md#the-envelope) and [the api](docs/api.md).",
        "External [site](https://example.com/x), [mail](mailto:a@b.c), [here](#run-it), ![shot](docs/shot.png).",
        "The old [rules](../shared/docs/CONTRACT.md) and a note at /work/main/notes",
        "```sh",
        "echo [not](a-link.md)",
        "```",
      ].join("\n"),
      "docs/contract.md": "Words in [glossary](glossary.md), code in [decide](../packages/contract/src/decide.ts).\n",
      "docs/decisions/0001-x.md": "Back to [the api](../api.md) and [root](/tmp/elsewhere.md).\n",
      "packages/contract/README.md": "The [contract](../../docs/contract.md#actions-precisely).\n",
      "packages/contract/src/decide.ts": "export {};\n",
      "docs/api.md": "ok\n",
      "examples/worker/README.md": "Run [it](worker.py) against [the api](../../docs/api.md).\n",
    });
    expect(findDocLinkProblems(dir).map(formatDocLinkProblem)).toEqual([
      "README.md:2: missing target: docs/shot.png",
      "README.md:3: points outside the repository: ../shared/docs/CONTRACT.md",
      "README.md:3: points outside the repository: /work/main/notes",
      "README.md:3: points outside the repository: ../shared/docs/CONTRACT.md",
      "docs/contract.md:1: missing target: glossary.md",
      "docs/decisions/0001-x.md:1: points outside the repository: /tmp/elsewhere.md",
      "docs/decisions/0001-x.md:1: points outside the repository: /tmp/elsewhere.md",
      "examples/worker/README.md:1: missing target: worker.py",
    ]);
  });

  it("passes a tree whose links all resolve", () => {
    const dir = tree({
      "README.md": "[a](docs/a.md) [b](packages/p/README.md#usage) [dir](docs/)\n",
      "docs/a.md": "[back](../README.md)\n",
      "packages/p/README.md": "[a](../../docs/a.md)\n",
    });
    expect(findDocLinkProblems(dir)).toEqual([]);
  });
});
