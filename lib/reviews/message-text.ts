// A record carries its message twice: `messageText`, the JSON text exactly as the consumer sent
// it, and `message`, the same text parsed. Pure (no server imports): the record page on the
// server and the console in the browser read a record the same way.

/** The message `text` holds, or null when it is not JSON (a stored message always is). */
export function parseMessageText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The record with its `message` parsed from its `messageText`. */
export function withParsedMessage<T extends { messageText: string }>(record: T): T & { message: unknown } {
  return { ...record, message: parseMessageText(record.messageText) };
}
