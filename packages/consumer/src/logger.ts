/** The few log calls the runtime and the transports make; a pino logger fits it as it is. */
export interface ConsumerLogger {
  child(bindings: Record<string, unknown>): ConsumerLogger;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

function errorFields(value: unknown): unknown {
  return value instanceof Error ? { type: value.name, message: value.message, stack: value.stack } : value;
}

/**
 * One JSON object a line on stderr, for a worker that brings no logger of its own. Message text
 * and payloads stay inside JSON strings, so an odd payload cannot forge a log line.
 */
export function jsonLogger(bindings: Record<string, unknown> = {}): ConsumerLogger {
  const write = (level: string) => (details: object, message: string) => {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(details)) fields[key] = errorFields(value);
    process.stderr.write(
      `${JSON.stringify({ level, time: new Date().toISOString(), ...bindings, ...fields, msg: message })}\n`,
    );
  };
  return {
    child: (more) => jsonLogger({ ...bindings, ...more }),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
  };
}
