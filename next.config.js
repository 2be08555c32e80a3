/** @type {import('next').NextConfig} */
const nextConfig = {
  // The console is served by its own process; no telemetry or remote fonts are fetched.
  poweredByHeader: false,
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

export default nextConfig;
