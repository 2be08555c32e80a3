import { describe, expect, it } from "vitest";
import { listOperations } from "@/lib/operations";
import { seedDemo } from "@/lib/seed";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();

describe("the demo data set", () => {
  it("holds people, tokens, a record of every category, and a planned bulk replay of the held gaps with its dry run", async () => {
    const credentials = await seedDemo();
    expect(credentials.users.map((u) => u.role).sort()).toEqual(["admin", "auditor", "owner", "support"]);
    const categories = await withClient(database.current.url, async (c) =>
      (await c.query(`SELECT DISTINCT category::text AS c FROM review_records ORDER BY 1`)).rows.map((r) => r.c),
    );
    expect(categories).toEqual(["effect-result-unknown", "manual-review", "sequence-gap"]);
    const { items } = await listOperations({}, "owner");
    expect(items).toHaveLength(1);
    const [op] = items;
    expect(op).toMatchObject({ action: "replay", state: "planned", controls: ["dry-run", "confirm", "abort"] });
    expect(op!.total).toBeGreaterThan(0);
    const judged = Object.values(op!.dryRun?.counts ?? {}).reduce((a, b) => a + (b ?? 0), 0);
    expect(judged).toBe(op!.total);
  });
});
