#!/usr/bin/env node
// The gateway's speech edge in a process of its own for bench/capacity (bench/synthesis/speech-edge.mjs):
// its memory can be sampled (the soak), and the benchmark's clients do not share its event loop.
// Environment: PORT, REDIS_URL, SYNTHESIS_QUEUE, SPEECH_KEY_PREFIX, SPEECH_QUEUE_WAIT_MS, PIPER_VOICES_DIR.
import { createRequire } from 'node:module';
import { serveSpeechEdge } from '../synthesis/speech-edge.mjs';

const require = createRequire(import.meta.url);
const { Redis } = require('ioredis');

const env = process.env;
const port = Number(env.PORT);
const redis = new Redis(env.REDIS_URL);
const served = await serveSpeechEdge({
  port,
  redis,
  apiKey: 'sk_bench_capacity',
  identity: {
    sub: 'acct_bench_capacity',
    roles: ['USER'],
    scope: 'speech:read speech:write',
    method: 'api_key',
    plan: 'pro',
  },
  // Warnings only: the benchmark counts refusals from the answers.
  logLevel: 'warn',
  config: {
    REDIS_URL: env.REDIS_URL,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SYNTHESIS_QUEUE: env.SYNTHESIS_QUEUE,
    SPEECH_KEY_PREFIX: env.SPEECH_KEY_PREFIX,
    SPEECH_FRAME_TIMEOUT_MS: 60_000,
    SPEECH_QUEUE_WAIT_MS: Number(env.SPEECH_QUEUE_WAIT_MS ?? 5_000),
    PIPER_VOICES_DIR: env.PIPER_VOICES_DIR ?? '',
  },
});
process.once('SIGTERM', async () => {
  await served.stop();
  redis.disconnect();
  process.exit(0);
});
