import pino from "pino";

// Structured JSON logs: payload text lands in a JSON string field, never raw in the log line,
// so a hostile payload cannot forge log entries.
export const log = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
  base: { service: "review-console" },
  redact: { paths: ["req.headers.authorization", "req.headers.cookie", "password", "token"], censor: "[redacted]" },
});
