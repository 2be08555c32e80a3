-- The queue's sorted orders (docs/decisions/0027-queue-sorting.md): GET /api/v1/reviews
-- with `sort=` orders by first_seen_at, last_seen_at or attempts, ties by id, and pages with a
-- keyset on (column, id). Each order has two B-trees on (column, id):
--
-- - one on its own, for the list without a status filter, and
-- - one behind status, for the list with one status (the console's default is status=open).
--
-- Both directions of an order read the same index (forwards or backwards), and the keyset
-- condition `(column, id) < ($value, $id)` is a range of it, so a page deep in a sorted list costs
-- what the first does. Other filters (kind, reason, ...) combine with these or with their own
-- (column, seq) index, as the planner finds cheaper.
--
-- Cost: last_seen_at and attempts change on every repeated report of a record, which can no longer
-- be a HOT update (an indexed column changed); measured with bench:intake (ADR 0027).

CREATE INDEX "review_records_first_seen_at_id_idx" ON "review_records"("first_seen_at", "id");
CREATE INDEX "review_records_last_seen_at_id_idx" ON "review_records"("last_seen_at", "id");
CREATE INDEX "review_records_attempts_id_idx" ON "review_records"("attempts", "id");
CREATE INDEX "review_records_status_first_seen_at_id_idx" ON "review_records"("status", "first_seen_at", "id");
CREATE INDEX "review_records_status_last_seen_at_id_idx" ON "review_records"("status", "last_seen_at", "id");
CREATE INDEX "review_records_status_attempts_id_idx" ON "review_records"("status", "attempts", "id");
