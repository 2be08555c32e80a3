// The part of lib/notifications a browser may hold (no database, no server code): client components import
// it from here, the server through ./index.ts, which re-exports it.

export { EVENT_TYPES, WEBHOOK_FORMATS } from "./events";
