import { toNextJsHandler } from "better-auth/next-js";
import { answerAuthRequest } from "@/lib/http/auth-endpoint";

// Better Auth's endpoints (sign-in/email, sign-out, get-session, ...). The instance is made on
// the first request, never at import: `next build` loads this module with no database.
export const { GET, POST, PATCH, PUT, DELETE } = toNextJsHandler(answerAuthRequest);
