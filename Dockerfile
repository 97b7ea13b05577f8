# syntax=docker/dockerfile:1

# ---- build: install everything, compile TypeScript, then drop dev dependencies ----
FROM node:26-bookworm-slim AS build
WORKDIR /app

COPY package.json package-lock.json ./
# The `nest generate` collection, a devDependency linked from this directory (`file:schematics`):
# without it npm ci would link to nothing (docs/architecture.md, "Nest CLI").
COPY schematics ./schematics
RUN npm ci

# Only what the build needs (no .dockerignore required: the host's node_modules and dist stay out).
COPY tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
# The console's API types are generated from the committed OpenAPI document at build time.
COPY docs/openapi.json ./docs/openapi.json
# scripts/build.mjs: the incremental build (`npm run build`).
COPY scripts ./scripts
RUN npm run build \
 && npm prune --omit=dev \
 && npm cache clean --force

# ---- runtime: compiled output and production dependencies only, as a non-root user ----
FROM node:26-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    WARDEN_DATA_DIR=/data
WORKDIR /app

RUN groupadd --system --gid 10001 warden \
 && useradd --system --uid 10001 --gid warden --no-create-home --shell /usr/sbin/nologin warden \
 && mkdir -p /data \
 && chown warden:warden /data

# package.json carries "type": "module", which the compiled ESM output needs at run time.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

USER 10001:10001
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/apps/server/bundle/main.js"]
