// The contract every queue message is held to (docs/contract.md in the console's repository):
// the envelope, the decision rules, the kinds and their retry policy, what the console's json
// column can store, and the exact text of JSON values. Pure: no I/O, safe in a browser.
export * from "./decide.ts";
export * from "./envelope.ts";
export * from "./issues.ts";
export * from "./kinds.ts";
export * from "./message-shape.ts";
export * from "./raw-json.ts";
export * from "./required-check.ts";
export * from "./retry.ts";
