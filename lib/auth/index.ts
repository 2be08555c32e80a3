// lib/auth: Who is calling: Better Auth's sessions and sign-in, single sign-on, passwords and their
// links, bearer tokens, and the cross-site check. Its face (docs/decisions/0049-modules-in-
// order.md): what other code may import of it, with the browser-safe part from ./client.ts.

export * from "./client";
export { authenticate } from "./authenticate";
export { auth, authAdapterFor, authFor, requestOrigin, sessionUser, SIGN_IN_RATE_LIMIT } from "./better-auth";
export { refuseCrossSite } from "./cross-site";
export { grantsWithKnownDomains, syncOidcGrants } from "./oidc-grants";
export { oidcSettings } from "./oidc-settings";
export { oidcValidateUserInfo } from "./oidc";
export { issuePasswordLink, type PasswordLink } from "./password-links";
export { hashPassword } from "./passwords";
export { authSecret } from "./secret";
export { currentUser, requireUser } from "./session";
export { SIGN_IN_ACCOUNT_LIMIT } from "./sign-in-limit";
export { createApiToken, hashToken, newToken, tokenLookups, type TokenRow, tokenRows } from "./tokens";
