import path from "node:path";
import { describe, expect, it } from "vitest";
import { findBoundaryViolations } from "./client-boundary";
import { fileTrees } from "../../tests/support/file-tree";

const tree = fileTrees("rc-boundary-");

describe("the client boundary", () => {
  it("names the chain from a client component to a module that loads the database driver", () => {
    const dir = tree({
      "components/list.tsx": `"use client";\nimport { rows } from "@/lib/area/rows";\nexport const List = () => rows;`,
      "lib/area/rows.ts": `import { pool } from "../db/pool";\nexport const rows = pool;`,
      "lib/db/pool.ts": `import pg from "pg";\nexport const pool = new pg.Pool();`,
    });
    expect(findBoundaryViolations(dir)).toEqual([
      {
        client: "components/list.tsx",
        chain: ["components/list.tsx", "lib/area/rows.ts", "lib/db/pool.ts"],
        reason: "imports pg",
      },
    ]);
  });

  it("refuses secrets from the environment and Node built-ins, not public variables", () => {
    const dir = tree({
      "components/a.tsx": `"use client";\nimport "./secret";\nimport "./fs";\nimport "./public";`,
      "components/secret.ts": `export const key = process.env.BETTER_AUTH_SECRET;`,
      "components/fs.ts": `import { readFileSync } from "fs";\nexport { readFileSync };`,
      "components/public.ts": `export const mode = process.env.NODE_ENV + process.env.NEXT_PUBLIC_BASE;`,
    });
    expect(findBoundaryViolations(dir).map((v) => [v.chain.at(-1), v.reason])).toEqual([
      ["components/secret.ts", "reads process.env.BETTER_AUTH_SECRET"],
      ["components/fs.ts", "imports fs"],
    ]);
  });

  it("lets a client component take types from a server module: they are erased", () => {
    const dir = tree({
      "components/a.tsx": `"use client";\nimport type { Row } from "@/lib/db/rows";\nimport { type Other } from "@/lib/db/rows";\nexport type { Row, Other };`,
      "lib/db/rows.ts": `import pg from "pg";\nexport type Row = { id: string };\nexport type Other = number;\nexport const p = pg;`,
    });
    expect(findBoundaryViolations(dir)).toEqual([]);
  });

  it("follows re-exports and dynamic imports", () => {
    const dir = tree({
      "components/a.tsx": `"use client";\nexport { x } from "./b";\nexport const later = () => import("./c");`,
      "components/b.ts": `export const x = process.env.DATABASE_URL;`,
      "components/c.ts": `import pino from "pino";\nexport const log = pino();`,
    });
    expect(findBoundaryViolations(dir).map((v) => v.chain.at(-1))).toEqual(["components/b.ts", "components/c.ts"]);
  });

  it("follows a workspace package to its source through tsconfig.json's paths", () => {
    const dir = tree({
      "tsconfig.json": JSON.stringify({ compilerOptions: { paths: { "@acme/kit": ["./packages/kit/src/index.ts"] } } }),
      "components/a.tsx": `"use client";\nimport { pool } from "@acme/kit";\nexport const p = pool;`,
      "packages/kit/src/index.ts": `export * from "./pool.ts";`,
      "packages/kit/src/pool.ts": `import pg from "pg";\nexport const pool = new pg.Pool();`,
    });
    expect(findBoundaryViolations(dir).map((v) => v.chain)).toEqual([
      ["components/a.tsx", "packages/kit/src/index.ts", "packages/kit/src/pool.ts"],
    ]);
  });

  it("holds for this codebase: no client component reaches server code", () => {
    const violations = findBoundaryViolations(path.resolve(import.meta.dirname, "../.."));
    expect(violations).toEqual([]);
  }, 60_000);
});
