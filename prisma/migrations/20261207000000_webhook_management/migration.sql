-- Webhooks managed in the console (docs/decisions/0048-webhooks-in-the-console.md): an endpoint
-- can be disabled without being removed. While `disabled_at` is set, no new event is queued for
-- it and its pending deliveries wait (they are sent again once it is enabled); its history stays.
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled_at" timestamptz(3);
