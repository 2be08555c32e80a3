import { checkSignInConfig, ConfigError } from "./oidc-config";

/**
 * The start-up check of the sign-in settings (instrumentation.ts): a bad one ends the process
 * with a message naming it, rather than failing every sign-in later.
 */
export function checkSignInConfigOrExit(): void {
  try {
    checkSignInConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`error: ${error.message}`);
    process.exit(2);
  }
}
