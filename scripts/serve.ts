// First: the whole configuration, checked as this module loads (a bad variable ends the process,
// exit code 2, every one named), before the server's modules load.
import "@/lib/server/start-check";
import path from "node:path";
import { config } from "@/lib/config";
import { startConsoleServer } from "@/lib/server/console-server";

// The production server `npm start` runs (instead of `next start`): Next behind our own
// node:http server, which passes each request's socket address on (lib/server/console-server.ts).
// Usage: tsx scripts/serve.ts [-H host] [-p port]; defaults HOST / PORT, else 127.0.0.1:3000.

function option(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const hostname = option("-H") ?? config().HOST;
const port = Number(option("-p") ?? config().PORT);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`error: not a port: ${option("-p")}`);
  process.exit(2);
}

const server = await startConsoleServer({ dir: path.resolve(import.meta.dirname, ".."), hostname, port });
console.log(`Ready on http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`);
const stop = () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  // Requests still running get a few seconds; then the process ends anyway.
  setTimeout(() => process.exit(0), 5000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
