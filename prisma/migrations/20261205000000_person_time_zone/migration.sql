-- The zone a person reads and types times in (docs/decisions/0043-one-time-zone-rule.md): `UTC`
-- or an IANA name, chosen by the person in the console and kept with their account. The console
-- checks the name against the platform's zone database before it writes one; the length bound is
-- the database's own guard.
ALTER TABLE "users" ADD COLUMN "time_zone" text NOT NULL DEFAULT 'UTC'
  CONSTRAINT "users_time_zone_length" CHECK (char_length("time_zone") BETWEEN 1 AND 64);
