-- Finished records by month (docs/decisions/0024-finished-record-partitions.md).
--
-- review_records itself stays one table: it is the hottest table of the product, four tables
-- reference its id, and a partitioned table's keys must include the partition key (the ADR says
-- why that was not taken). Instead, `review-console archive` (lib/retention/finished-records.ts)
-- moves each finished record (resolved or cancelled) whose month is over, with its history,
-- revisions, replays and bulk-operation items, into the month's native partition of
-- finished_records, one transaction per batch; writes that partition to NDJSON and fsyncs it; then
-- detaches the partition and drops it. Open records (open, replay-scheduled, replaying) are never
-- moved: the move selects and locks only resolved and cancelled ones.
--
-- Deleting the moved rows from review_records, replays and bulk_operation_items fires the count
-- triggers of 20261201030000 and 20261201040000, so stats, group counts and metrics lose them in
-- the same transaction: the live counts are counts of live records.

-- One row per moved record. `finished_month` is the month, 'YYYY-MM' in UTC, of the record's
-- last change (`updated_at`): for a finished record, when it finished, or its
-- last note. LIST partitions, one value each: a month is one partition, named by its value.
-- `document` holds the record's columns (its message as the exact text, `messageText`), its
-- history, revisions, replays and operation items: the NDJSON line as written.
-- Partitions (finished_records_YYYY_MM) are created by the archive, as the owner, when a month is
-- moved, and exist only until its file is written; the migration creates none.
CREATE TABLE "finished_records" (
    "finished_month" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "status" "ReviewStatus" NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,
    "moved_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "document" JSONB NOT NULL,
    -- A partitioned table's primary key must include its partition key; the id's uniqueness
    -- across months is archived_review_records' primary key.
    CONSTRAINT "finished_records_pkey" PRIMARY KEY ("finished_month", "id"),
    CONSTRAINT "finished_records_finished" CHECK ("status" IN ('resolved', 'cancelled')),
    CONSTRAINT "finished_records_month" CHECK ("finished_month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$')
) PARTITION BY LIST ("finished_month");

-- Every id that left review_records for the archive, and the month it went with: what lets the
-- record's detail answer "archived with 2026-01" instead of an unexplained 404. 16 bytes of id and
-- a date per record, never deleted.
CREATE TABLE "archived_review_records" (
    "id" UUID NOT NULL,
    "finished_month" TEXT NOT NULL,
    "archived_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "archived_review_records_pkey" PRIMARY KEY ("id")
);

-- One row per file written: the month, which part of it (a month's records held back by a running
-- bulk operation are archived by a later run, into part 2, ...), the file's name, how many records
-- it holds and its SHA-256. Inserted in the transaction that detaches and drops the partition.
CREATE TABLE "finished_record_archives" (
    "finished_month" TEXT NOT NULL,
    "part" INTEGER NOT NULL,
    "file" TEXT NOT NULL,
    "records" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "archived_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "finished_record_archives_pkey" PRIMARY KEY ("finished_month", "part")
);
