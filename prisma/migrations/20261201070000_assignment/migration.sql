-- Assignment (docs/decisions/0028-assignment-and-scheduled-replays.md): a record may be
-- assigned to one person who acts on records (an owner or support). Who assigned whom, when and
-- why is in the record's history and the decision log; the column holds only the current state.
--
-- ON DELETE SET NULL: people are disabled, not deleted (ADR 0011), but should a person row ever
-- go, their records fall back to unassigned instead of blocking the delete; the history keeps
-- who they were assigned to.
ALTER TABLE "review_records" ADD COLUMN "assignee_id" UUID;

ALTER TABLE "review_records" ADD CONSTRAINT "review_records_assignee_id_fkey"
  FOREIGN KEY ("assignee_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The queue's `assignee=` filter ("Mine"), newest first like every list: equality, then the keyset.
CREATE INDEX "review_records_assignee_id_seq_idx" ON "review_records" ("assignee_id", "seq");
