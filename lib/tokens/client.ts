// The part of lib/tokens a browser may hold (no database, no server code): client components import
// it from here, the server through ./index.ts, which re-exports it.

export { createTokenSchema, EXPIRY_DAYS, revokeTokenSchema, tokenNameSchema } from "./token-schema";
