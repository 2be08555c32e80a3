/** @type {import('next').NextConfig} */
const nextConfig = {
  // The console is served by its own process; no telemetry or remote fonts are fetched.
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
