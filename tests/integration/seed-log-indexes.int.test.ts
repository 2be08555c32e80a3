/**
 * A seeded decision log has the indexes a migrated one has, on every partition. The seed drops
 * the log's indexes for a fast copy and builds them again; built from pg_get_indexdef of the
 * partitioned parent (`ON ONLY`), they existed on the parent alone, and the 10M/30M measurements
 * ran on partitions with their primary keys only.
 */
import { expect, it } from "vitest";
import { seedSyntheticLogEntries } from "@/testing/seed/synthetic-log";
import { verifyDecisionLog } from "@/lib/audit";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const DAY_MS = 24 * 60 * 60 * 1000;

/** Each partition of the log with its indexes' definitions, names and the partition's own name left out. */
async function partitionIndexes(): Promise<Map<string, string[]>> {
  const rows = await withClient(
    database.current.url,
    async (c) =>
      (
        await c.query<{ partition: string; definition: string }>(
          `SELECT p.inhrelid::regclass::text AS partition, pg_get_indexdef(i.indexrelid) AS definition
           FROM pg_inherits p JOIN pg_index i ON i.indrelid = p.inhrelid
          WHERE p.inhparent = 'decision_log'::regclass AND i.indisvalid`,
        )
      ).rows,
  );
  const byPartition = new Map<string, string[]>();
  for (const row of rows) {
    const shape = row.definition
      .replace(/INDEX \S+ ON /, "INDEX ON ")
      .replaceAll(`public.${row.partition}`, "<partition>")
      .replaceAll(row.partition, "<partition>");
    byPartition.set(row.partition, [...(byPartition.get(row.partition) ?? []), shape].sort());
  }
  return byPartition;
}

it("every partition of a seeded log has the indexes of a migrated one, and the chain verifies", async () => {
  const migrated = await partitionIndexes();
  const reference = migrated.get("decision_log_default");
  expect(reference?.length, "the migrated default partition's indexes").toBeGreaterThan(1);

  await seedSyntheticLogEntries(database.current.url, 300, { spanMs: 100 * DAY_MS, rebuildIndexes: true });

  const seeded = await partitionIndexes();
  expect(seeded.size, "months of the seed got partitions").toBeGreaterThanOrEqual(4);
  for (const [partition, indexes] of seeded) expect(indexes, partition).toEqual(reference);
  expect(await verifyDecisionLog(database.current.url)).toMatchObject({ ok: true });
});
