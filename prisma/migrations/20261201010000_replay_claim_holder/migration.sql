-- A replay's outcome comes from whoever holds its claim. `claimed_by` is the consumer
-- name the claimer chose, which any consumer token can repeat; `claimed_by_actor` is who
-- authenticated the claim: `<kind>:<id>` of the actor (lib/auth/actor.ts), for a token its
-- row id, stable and distinct even when two tokens share a name. A re-claim after the lease ran
-- out overwrites it. Replays claimed before this migration have none, so their outcome is
-- refused until the lease runs out and a consumer claims them again (the effectKey makes that
-- second run safe).
ALTER TABLE "replays" ADD COLUMN "claimed_by_actor" TEXT;
