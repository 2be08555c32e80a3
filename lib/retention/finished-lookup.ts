import { db } from "@/lib/db/client";
import { Refusal } from "@/lib/domain/refusal";

/**
 * The detail of an archived record (docs/decisions/0024-finished-record-partitions.md): a 404
 * like any unknown id, but one that says where the record went, so that a link kept from before
 * the archive explains itself. Null when the id was never archived.
 */
export async function archivedRecordRefusal(id: string): Promise<Refusal | null> {
  const client = db();
  const archived = await client.archivedReviewRecord.findUnique({ where: { id } });
  if (!archived) return null;
  const files = await client.finishedRecordArchive.findMany({
    where: { finishedMonth: archived.finishedMonth },
    orderBy: { part: "asc" },
    select: { file: true },
  });
  const names = files.map((f) => f.file);
  const where = names.length > 0 ? `in ${names.join(", ")}` : "(its file is being written)";
  return new Refusal(
    "not-found",
    "review-archived",
    `review record ${id} was archived with the finished records of ${archived.finishedMonth} ${where}`,
    {
      context: {
        archived: { month: archived.finishedMonth, files: names, archivedAt: archived.archivedAt.toISOString() },
      },
    },
  );
}
