# syntax=docker/dockerfile:1
# The console's image (docs/deploy.md, docs/decisions/0017-deployment.md):
#   docker build -t review-console .
# Stages: the dependencies, the build (`npm run build`: next build, then our server bundled into
# .next/standalone), `tools` (the demo worker and the command line) and the runtime, the default,
# which holds nothing but that standalone output. Every stage uses the same base image: npm picks
# the native modules (argon2, sharp) for the platform and C library of the stage that installs
# them, and they must run in the last.

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# The manifests alone, so the layer of `npm ci` is reused until they change. No install scripts:
# the image needs none of them (docs/deploy.md), and the npm of the base image may predate the
# allowScripts policy in package.json, which would let @prisma/engines download its engines.
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/consumer/package.json packages/consumer/
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# The Prisma client (offline: scripts/prisma-generate.mjs), which npm ci's postinstall would make.
RUN npm run generate
RUN npm run build

# The TypeScript demo worker and the command line (`review-console ...`), from the sources:
# compose.yaml runs it as its `demo-worker`. Not the default target.
FROM build AS tools
USER node
CMD ["node", "--import", "tsx", "scripts/demo.ts", "--transport", "redis"]

# The default target: the console. .next/standalone holds start.mjs (migrations, then our own
# server), Next's server files, the node_modules they use, prisma/migrations, prisma/functions and .next/static.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# HOST: inside a container loopback reaches nobody; publish the port on the host's loopback
# instead (compose.yaml: 127.0.0.1:3000).
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    HOST=0.0.0.0 \
    PORT=3000
COPY --from=build /app/.next/standalone ./
# The code stays root's and read-only to the console; it writes only its data folder (the session
# key when BETTER_AUTH_SECRET is unset: mount a volume there) and Next's cache.
RUN mkdir -p /app/.data /app/.next/cache && chown node:node /app/.data /app/.next/cache
USER node
EXPOSE 3000
# No curl in the slim image: Node asks the health route, which answers 200 once the database does.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "start.mjs"]
