-- A requester may withdraw their own pending approval request: a status of its own, so the list
-- and the decision log tell it apart from a rejection by another person.
ALTER TABLE "approval_requests" DROP CONSTRAINT "approval_requests_status_check";
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_status_check"
  CHECK ("status" IN ('pending', 'approved', 'rejected', 'expired', 'failed', 'withdrawn'));
