import { controlRoute } from "@/lib/http/operation-routes";
import { resumeOperation } from "@/lib/operations/control";
import { resumeSchema } from "@/lib/operations/schema";

/** POST /api/v1/operations/{id}/resume (also "continue" after the canary) */
export const POST = controlRoute(resumeSchema, resumeOperation);
