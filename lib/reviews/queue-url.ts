// The queue's URL is its state (components/queue/queue-params.ts reads it): the parameters of
// GET /api/v1/reviews plus a few words of the console's own. They are here, below both the queue
// and the saved views (lib/views/saved-query.ts), so the two read one vocabulary. Isomorphic.

/** Without a `status` parameter the queue shows open records. */
export const DEFAULT_STATUS = "open";
/** `status=all`: no status filter (the API has no such value: it is the parameter left out). */
export const ALL_STATUSES = "all";
/** `view=groups`: the records grouped by cause instead of listed. */
export const GROUPED_VIEW = { key: "view", value: "groups" } as const;
/** A page of the list (where it resumes, how long it is), not what the list is: no view keeps them. */
export const PAGE_PARAMS = ["cursor", "limit"] as const;
