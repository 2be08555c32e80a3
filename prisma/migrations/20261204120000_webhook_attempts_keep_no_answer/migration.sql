-- A webhook attempt keeps the endpoint's status only: the answer's text made an endpoint inside
-- the network readable through the console (docs/threat-model.md). The excerpts kept so far go.
ALTER TABLE "webhook_attempts" DROP COLUMN "response_excerpt";
