// lib/views: Saved views of the queue: a person's filters and sort under a name, shared or not. Its
// face (docs/decisions/0049-modules-in-order.md): what other code may import of it, with the
// browser-safe part from ./client.ts.

export * from "./client";
export { type SavedView } from "./response-schemas";
export * as responseSchemas from "./response-schemas";
export { createView, deleteView, listViews, listViewsOf, updateView } from "./store";
