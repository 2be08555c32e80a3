// The part of lib/views a browser may hold (no database, no server code): client components import
// it from here, the server through ./index.ts, which re-exports it.

export { savedQueryOf } from "./saved-query";
export { createViewSchema, MAX_VIEW_NAME, MAX_VIEWS_PER_PERSON, updateViewSchema } from "./schema";
