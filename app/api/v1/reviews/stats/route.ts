import { apiRoute } from "@/lib/http/route";
import { reviewStats } from "@/lib/reviews/stats";

export const GET = apiRoute("reviews.read", async () => Response.json(await reviewStats()));
