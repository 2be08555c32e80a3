import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The layers of lib/ (docs/decisions/0046-layers-of-lib.md) and the order of its modules (0049) are a lint rule in eslint.config.mjs:
// these lines, linted as if they were in the named file, show that it holds.
const eslint = new ESLint();

async function refusals(filePath: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("the layers of lib/", () => {
  it("refuses an import of a layer above", async () => {
    expect(await refusals("lib/reviews/probe.ts", 'export { apiRoute } from "@/lib/http/route";\n')).toEqual([
      expect.stringContaining("The modules layer of lib/ may not import a layer above it"),
    ]);
    expect(await refusals("lib/db/probe.ts", 'export type { ReviewListItem } from "../reviews";\n')).toEqual([
      expect.stringContaining("The platform layer of lib/ may not import a layer above it"),
    ]);
    expect(
      await refusals("lib/access/probe.ts", 'export { startConsoleServer } from "@/lib/server/console-server";\n'),
    ).toEqual([expect.stringContaining("The modules layer")]);
  });

  it("refuses an import of a module after this one in MODULES, which is what a cycle between modules needs", async () => {
    // reviews <- approvals <- operations <- actions: the cycle ADR 0049 untangled, put back.
    expect(await refusals("lib/reviews/probe.ts", 'export { performAction } from "@/lib/actions";\n')).toEqual([
      expect.stringContaining("lib/reviews may import only the modules before it"),
    ]);
    expect(await refusals("lib/approvals/probe.ts", 'export type { OperationView } from "../operations";\n')).toEqual([
      expect.stringContaining("lib/approvals may import only the modules before it"),
    ]);
    expect(
      await refusals(
        "lib/actions/probe.ts",
        'export { reviewFilterSql } from "@/lib/reviews";\nexport { createOperationInTx } from "@/lib/operations";\n',
      ),
    ).toEqual([]);
  });

  it("refuses a deep import past a module's face, and allows what goes down or through the face", async () => {
    expect(await refusals("lib/reviews/probe.ts", 'export { standingOf } from "@/lib/access/standing";\n')).toEqual([
      expect.stringContaining("Import a module of lib/ through its face"),
    ]);
    expect(
      await refusals(
        "lib/reviews/probe.ts",
        'export { standingOf } from "@/lib/access";\nexport { db } from "@/lib/db/client";\n',
      ),
    ).toEqual([]);
    expect(await refusals("lib/http/probe.ts", 'export { listReviews } from "@/lib/reviews/list";\n')).toEqual([
      expect.stringContaining("Import a module of lib/ through its face"),
    ]);
    expect(await refusals("app/probe/route.ts", 'export { listReviews } from "@/lib/reviews";\n')).toEqual([]);
    // A client component takes the browser-safe face; inside a module, its own files are its own.
    expect(await refusals("components/probe.tsx", 'export { REVIEW_STATUSES } from "@/lib/reviews/client";\n')).toEqual(
      [],
    );
    expect(await refusals("lib/reviews/probe.ts", 'export { listReviews } from "@/lib/reviews/list";\n')).toEqual([]);
  });
}, 60_000);
