/** @type {import('next').NextConfig} */
const nextConfig = {
  // The console is served by its own process; no telemetry or remote fonts are fetched.
  poweredByHeader: false,
  reactStrictMode: true,
  experimental: {
    // forbidden() in requireUser (lib/auth/session.ts) renders app/forbidden.tsx with a 403.
    authInterrupts: true,
  },
};

export default nextConfig;
