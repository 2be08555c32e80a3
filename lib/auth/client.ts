// The part of lib/auth a browser may hold (no database, no server code): client components import
// it from here, the server through ./index.ts, which re-exports it.

export { authClient } from "./auth-client";
export { grantsForGroups, OIDC_PROVIDER_ID, oidcConfig, parseGroupGrants, signInProblems } from "./oidc-config";
export { HOME_PATH, loginPath, safeNextPath } from "./next-path";
