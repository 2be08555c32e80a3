import { controlRoute } from "@/lib/http/operation-routes";
import { resumeOperation, resumeSchema } from "@/lib/operations";

/** POST /api/v1/operations/{id}/resume (also "continue" after the canary) */
export const POST = controlRoute(
  {
    name: "resume",
    operationId: "resumeOperation",
    summary: "Resume an operation",
    description: "Carries it on (also past the canary), on the resumer's authority.",
    body: resumeSchema,
  },
  resumeOperation,
);
