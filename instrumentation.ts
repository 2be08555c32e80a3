// Next.js calls register() once when a server process starts. The console's server runs the
// bulk-operations dispatcher (docs/operations.md): its state is in PostgreSQL, so a restarted
// server resumes every running operation where it was. Beside it runs the webhook notifier
// (docs/decisions/0032-notifications.md), whose state is in PostgreSQL too.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Sign-in settings (OIDC_*, PASSWORD_SIGN_IN): a bad one stops the start, named, rather than
  // failing each sign-in later (docs/decisions/0036-single-sign-on.md).
  const { checkSignInConfigOrExit } = await import("./lib/auth/oidc-startup");
  checkSignInConfigOrExit();
  // WEBHOOK_ALLOWED_NETWORKS: a bad entry stops the start, named (docs/deploy.md).
  const { checkAllowedNetworksOrExit } = await import("./lib/notifications/destination");
  checkAllowedNetworksOrExit();
  if (process.env.OPERATIONS_DISPATCHER !== "off") {
    const { startConsoleDispatcher } = await import("./lib/operations/console-dispatcher");
    startConsoleDispatcher();
  }
  if (process.env.WEBHOOKS !== "off") {
    const { startConsoleNotifier } = await import("./lib/notifications/console-notifier");
    startConsoleNotifier();
  }
}
