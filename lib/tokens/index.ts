// lib/tokens: API tokens: issuing, listing and revoking them. Its face
// (docs/decisions/0049-modules-in-order.md): what other code may import of it, with the browser-
// safe part from ./client.ts.

export * from "./client";
export { parseExpiresIn } from "./expires-in";
export { issueToken } from "./issue-token";
export { getTokenView, listTokens } from "./list-tokens";
export { revokeToken } from "./revoke-token";
export { type TokenView } from "./token-view";
