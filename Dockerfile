# syntax=docker/dockerfile:1
# One image definition for the four apps. Build stage compiles the whole workspace; each runtime target
# carries the compiled output and production dependencies. docker-compose.yml picks the target per service.

# ── build: install everything, compile TypeScript ─────────────────────────────
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci && npm run build \
 && npm prune --omit=dev

# ── runtime base: compiled workspace + production node_modules (dev deps pruned) ─
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/libs ./libs
COPY --from=build /app/apps ./apps
USER node

# ── synthesis worker: needs the speech engine (espeak-ng), an MP3 encoder (lame), and python3, whose
#    ctypes reads eSpeak NG's word timing from its library (the with-timestamps routes) ──
FROM runtime AS synthesis-worker
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends espeak-ng lame python3 \
 && rm -rf /var/lib/apt/lists/*
USER node
EXPOSE 8083
CMD ["node", "apps/synthesis-worker/dist/main.js"]

# ── default target: any of gateway/auth/content (compose sets the command) ────
FROM runtime AS app
EXPOSE 8080 8081 8082
CMD ["node", "apps/gateway/dist/main.js"]
