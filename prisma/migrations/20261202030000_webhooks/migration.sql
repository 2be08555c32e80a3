-- Notifications (docs/decisions/0032-notifications.md): outgoing webhooks. The
-- notifier (lib/notifications/) reads the decision log after a cursor and the counts tables,
-- turns what it finds into events, and queues one delivery per endpoint and event in an outbox
-- that a background loop sends, signed as the Standard Webhooks specification says.

-- An endpoint: where events go. `domain` NULL: events of every domain (and of none).
CREATE TABLE "webhook_endpoints" (
  "id" UUID NOT NULL DEFAULT gen_random_uuid(),
  "url" TEXT NOT NULL CHECK ("url" ~ '^https?://' AND length("url") <= 2000),
  "domain" TEXT,
  -- The event types it takes, a JSON array of names (lib/notifications/events.ts names them;
  -- `events ? 'cause.new'` matches). Not TEXT[]: the schema's drift check reads no arrays.
  "events" JSONB NOT NULL CHECK (jsonb_typeof("events") = 'array' AND jsonb_array_length("events") > 0),
  "format" TEXT NOT NULL DEFAULT 'standard' CHECK ("format" IN ('standard', 'slack')),
  -- The signing secret (`whsec_…`), encrypted with a key derived from the console's secret
  -- (lib/notifications/secret-box.ts): it must be read back to sign, so it cannot be a hash.
  "secret_sealed" TEXT NOT NULL,
  -- Thresholds of `open.above` and `oldest-open.above`, over the endpoint's domain (NULL: off).
  "open_above" INTEGER CHECK ("open_above" > 0),
  "oldest_open_above_seconds" INTEGER CHECK ("oldest_open_above_seconds" > 0),
  "created_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id"),
  -- A domain removed takes its endpoints with it: widening them to every domain would send one
  -- team's events to another.
  CONSTRAINT "webhook_endpoints_domain_fkey" FOREIGN KEY ("domain") REFERENCES "domains"("name") ON DELETE CASCADE ON UPDATE CASCADE
);

-- The outbox: one row per endpoint and event. `id` is the `webhook-id` header, the same on every
-- retry; the unique (endpoint_id, event_key) makes a second id for one event impossible, however
-- many notifiers derive the event.
CREATE TABLE "webhook_deliveries" (
  "id" TEXT NOT NULL DEFAULT ('msg_' || replace(gen_random_uuid()::text, '-', '')),
  "endpoint_id" UUID NOT NULL,
  -- What the event is, stably: `log:<seq>:<type>` for the log's, `threshold:…:<n>` for crossings.
  "event_key" TEXT NOT NULL,
  "event_type" TEXT NOT NULL,
  -- The Standard Webhooks body: {type, timestamp, data}. The Slack format is rendered from it.
  "payload" JSONB NOT NULL,
  "state" TEXT NOT NULL DEFAULT 'pending' CHECK ("state" IN ('pending', 'delivered', 'failed')),
  "attempts" INTEGER NOT NULL DEFAULT 0,
  -- When it may next be tried. While an attempt runs it is pushed past the attempt's timeout: a
  -- lease, so a second notifier does not send it at the same time.
  "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "last_status" INTEGER,
  "delivered_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_id_event_key_key" ON "webhook_deliveries" ("endpoint_id", "event_key");
CREATE INDEX "webhook_deliveries_state_next_attempt_at_idx" ON "webhook_deliveries" ("state", "next_attempt_at");
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries" ("endpoint_id", "created_at");

-- Every attempt of a delivery: what the endpoint answered (status, the first characters of its
-- body, untrusted text) or why there was no answer, and how long it took.
CREATE TABLE "webhook_attempts" (
  "id" BIGSERIAL NOT NULL,
  "delivery_id" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL,
  "started_at" TIMESTAMPTZ(3) NOT NULL,
  "duration_ms" INTEGER NOT NULL,
  "status" INTEGER,
  "error" TEXT,
  "response_excerpt" TEXT,
  CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "webhook_attempts_delivery_id_attempt_key" ON "webhook_attempts" ("delivery_id", "attempt");

-- One row: the last decision-log seq turned into events. The notifier that holds this row
-- (FOR UPDATE SKIP LOCKED) is the only one reading the log; the others skip the step.
CREATE TABLE "webhook_log_cursor" (
  "id" INTEGER NOT NULL DEFAULT 1 CHECK ("id" = 1),
  "last_seq" BIGINT NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "webhook_log_cursor_pkey" PRIMARY KEY ("id")
);
-- From now: the log's past is not news.
INSERT INTO "webhook_log_cursor" ("id", "last_seq")
SELECT 1, COALESCE((SELECT max("seq") FROM "decision_log"), 0);

-- The causes (kind, reason, error class) already seen among records, NULL spelled `(none)` as
-- in the grouped view's index (an error class never holds parentheses). A cause the notifier
-- can insert here is new.
CREATE TABLE "webhook_known_causes" (
  "kind" TEXT NOT NULL,
  "reason" TEXT NOT NULL,
  "error_class" TEXT NOT NULL,
  "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "webhook_known_causes_pkey" PRIMARY KEY ("kind", "reason", "error_class")
);
INSERT INTO "webhook_known_causes" ("kind", "reason", "error_class")
SELECT DISTINCT COALESCE("kind", '(none)'), "reason", COALESCE("error_class", '(none)') FROM "review_records";

-- Whether an endpoint's threshold is crossed: fired once going up, armed again only once the
-- value went back below. `crossings` numbers the events (their event_key).
CREATE TABLE "webhook_threshold_states" (
  "endpoint_id" UUID NOT NULL,
  "metric" TEXT NOT NULL CHECK ("metric" IN ('open', 'oldest-open')),
  "above" BOOLEAN NOT NULL,
  "crossings" INTEGER NOT NULL DEFAULT 0,
  "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "webhook_threshold_states_pkey" PRIMARY KEY ("endpoint_id", "metric"),
  CONSTRAINT "webhook_threshold_states_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
