import { reportReviewBatch } from "@/lib/reviews/intake-routes";

// The handler lives in lib/reviews/intake-routes.ts: the console's own server answers bearer
// requests with it directly (lib/net/intake-fast-path.ts), so both ways in share one definition.
export const POST = reportReviewBatch;
