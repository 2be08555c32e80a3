// Next.js calls register() once when a server process starts. The console's server runs the
// bulk-operations dispatcher (docs/operations.md): its state is in PostgreSQL, so a restarted
// server resumes every running operation where it was. Beside it runs the webhook notifier
// (docs/decisions/0032-notifications.md), whose state is in PostgreSQL too.
export async function register(): Promise<void> {
  // NEXT_RUNTIME is Next's own, not the console's configuration: read here as Next documents.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // The whole configuration first (lib/config): a bad variable stops the start, every one named,
  // rather than failing a sign-in, a webhook or a request later
  // (docs/decisions/0042-one-validated-configuration.md).
  const { checkConfigOrExit } = await import("./lib/server/config-check");
  checkConfigOrExit();
  const { config } = await import("./lib/config");
  if (config().OPERATIONS_DISPATCHER) {
    const { startConsoleDispatcher } = await import("./lib/actions/console-dispatcher");
    startConsoleDispatcher();
  }
  if (config().WEBHOOKS) {
    const { startConsoleNotifier } = await import("./lib/notifications/console-notifier");
    startConsoleNotifier();
  }
}
