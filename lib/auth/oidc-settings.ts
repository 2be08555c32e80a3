import { config } from "@/lib/config";
import { oidcConfig, type OidcConfig } from "./oidc-config";

// The single sign-on settings of the running configuration, parsed once per configuration. Apart
// from ./oidc-config.ts, which client components read and which must not load lib/config.

const settingsOf = new WeakMap<object, OidcConfig | null>();

/** The single sign-on settings of the configuration, or null without OIDC_ISSUER (checked at start). */
export function oidcSettings(): OidcConfig | null {
  const settings = config();
  if (!settingsOf.has(settings)) {
    const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_GROUP_GRANTS, BETTER_AUTH_URL } = settings;
    const { OIDC_PROVIDER_NAME, OIDC_SCOPES, OIDC_GROUPS_CLAIM } = settings;
    const env = { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_GROUP_GRANTS, BETTER_AUTH_URL };
    settingsOf.set(settings, oidcConfig({ ...env, OIDC_PROVIDER_NAME, OIDC_SCOPES, OIDC_GROUPS_CLAIM }));
  }
  return settingsOf.get(settings)!;
}
