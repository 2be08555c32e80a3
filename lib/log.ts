import pino from "pino";
import { config } from "@/lib/config";

// Structured JSON logs: payload text lands in a JSON string field, never raw in the log line,
// so a hostile payload cannot forge log entries.
export const log = pino({
  // NODE_ENV is Next's and vitest's, not the console's configuration: read as they set it.
  level: config().LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
  base: { service: "review-console" },
  redact: { paths: ["req.headers.authorization", "req.headers.cookie", "password", "token"], censor: "[redacted]" },
});
