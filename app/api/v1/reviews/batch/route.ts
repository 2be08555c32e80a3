import { reportReviewBatch } from "@/lib/http/intake-routes";

// The handler lives in lib/http/intake-routes.ts: the console's own server answers bearer
// requests with it directly (lib/server/intake-fast-path.ts), so both ways in share one definition.
export const POST = reportReviewBatch;
