import { controlRoute } from "@/lib/http/operation-routes";
import { resumeOperation, resumeSchema } from "@/lib/operations";

/** POST /api/v1/operations/{id}/resume (also "continue" after the canary) */
export const POST = controlRoute(resumeSchema, resumeOperation);
