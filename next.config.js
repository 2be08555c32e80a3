import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { PHASE_PRODUCTION_BUILD } from "next/constants.js";

/**
 * A production build fails when a client component reaches server code (the database, a secret,
 * a Node built-in): scripts/check-client-boundary.ts, the check `npm run lint` runs too.
 */
function checkClientBoundary() {
  const tsx = createRequire(import.meta.url).resolve("tsx/cli");
  const check = spawnSync(
    process.execPath,
    [tsx, fileURLToPath(new URL("scripts/check-client-boundary.ts", import.meta.url))],
    { stdio: "inherit" },
  );
  if (check.status !== 0) throw new Error("a client component reaches server code (see above)");
}

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The console is served by its own process; no telemetry or remote fonts are fetched.
  poweredByHeader: false,
  // This folder, not a parent that happens to hold a lockfile too: the project is then the top of
  // .next/standalone, wherever the repository is checked out.
  outputFileTracingRoot: import.meta.dirname,
  // Code that reads the data folder (the session key, the runtime role's password) makes Next's
  // tracer copy what it finds there at build time into .next/standalone: local state and secrets
  // of the build machine must never ship (scripts/build-standalone.ts removes them as well).
  outputFileTracingExcludes: { "*": [".data/**", ".env", ".env.*"] },
  reactStrictMode: true,
  // The build's static files bypass proxy.ts (which gives every other answer its security
  // headers); they are scripts and styles served by type, never to be sniffed as something else.
  async headers() {
    return [{ source: "/_next/static/:path*", headers: [{ key: "X-Content-Type-Options", value: "nosniff" }] }];
  },
  experimental: {
    // forbidden() in requireUser (lib/auth/session.ts) renders app/forbidden.tsx with a 403.
    authInterrupts: true,
  },
};

export default function config(phase) {
  if (phase !== PHASE_PRODUCTION_BUILD) return nextConfig;
  checkClientBoundary();
  return {
    ...nextConfig,
    // A self-contained server folder (.next/standalone) for the container image, run by our own
    // server (scripts/standalone-start.ts, bundled there by scripts/build-standalone.ts), not by
    // the server.js Next writes: docs/decisions/0017-deployment.md. Only for the build: serving
    // from the project (scripts/serve.ts) with it set, Next warns that `next start` cannot and
    // points to that server.js.
    output: "standalone",
  };
}
