#!/usr/bin/env node
// Voice cloning benchmark: `POST /v1/voices/add` through a running platform (auth, content, a gateway and
// synthesis workers, which run the voice-analysis jobs), one upload at a time, with the reference recording
// of the voices tests (eSpeak NG, `REFERENCE_TEXT` of tests/voices/audio.ts). Prints the clone latency
// (median, p95) beside the floor measured in the same run (the analysis, `analyseClone` of
// libs/voice-analysis, called in this process on the same bytes), and the gateway's resident memory
// (VmRSS and VmHWM from /proc/<pid>/status) before and after. Needs the stack (node scripts/stack.mjs up)
// and a build (npm run build). Run it alone on the machine: every figure is a latency.
//
//   node bench/clone/bench.mjs [--voices 50] [--files 1] [--workers 1] [--floor-rounds 20]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import {
  INTERNAL_SECRET,
  freePort,
  percentile,
  root,
  stackEnv,
  startProcess,
  unique,
} from '../subscriptions/platform.mjs';

const require = createRequire(import.meta.url);
// Node 20's own (the lint configuration's globals predate them).
const { Blob, FormData } = globalThis;
const analysis = require(path.join(root, 'libs/voice-analysis/dist/index.js'));

const { values: args } = parseArgs({
  options: {
    voices: { type: 'string', default: '50' },
    files: { type: 'string', default: '1' },
    workers: { type: 'string', default: '1' },
    'floor-rounds': { type: 'string', default: '20' },
  },
});
const VOICES = Number(args.voices);
const FILES = Number(args.files);
const WORKERS = Number(args.workers);
const FLOOR_ROUNDS = Number(args['floor-rounds']);
const LIMITS = { maxFileSeconds: 120, minFileSeconds: 1 };

const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const ms = (x) => `${x.toFixed(1)} ms`;
const summary = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `median ${ms(percentile(sorted, 50))}, p95 ${ms(percentile(sorted, 95))} (${sorted.length})`;
};

/** The voices tests' recording (tests/voices/audio.ts, `espeakWav(REFERENCE_TEXT, 'en+m3', 30)`), its text read from there. */
function referenceSample() {
  const source = fs.readFileSync(path.join(root, 'tests/voices/audio.ts'), 'utf8');
  const text = /REFERENCE_TEXT =\s*'([^']+)'/.exec(source)?.[1];
  if (!text) throw new Error('REFERENCE_TEXT not found in tests/voices/audio.ts');
  return execFileSync('espeak-ng', ['-v', 'en+m3', '-p', '30', '--stdout', text], { maxBuffer: 64 * 1024 * 1024 });
}

/** VmRSS and VmHWM of a process, in MiB. */
function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}
const mib = ({ rss, hwm }) => `RSS ${rss.toFixed(1)} MiB (peak ${hwm.toFixed(1)} MiB)`;

// ---------- the floor: the analysis in this process ----------
async function floor(sample) {
  // One unmeasured run: ffmpeg's first start and the analysis code's compilation.
  await analysis.analyseClone([new Uint8Array(sample)], LIMITS);
  const times = [];
  for (let i = 0; i < FLOOR_ROUNDS; i += 1) {
    const files = Array.from({ length: FILES }, () => new Uint8Array(sample));
    const started = performance.now();
    const outcome = await analysis.analyseClone(files, LIMITS);
    times.push(performance.now() - started);
    if (!outcome.ok) throw new Error(`the floor refused the sample: ${JSON.stringify(outcome.failure)}`);
  }
  return times;
}

// ---------- the platform: auth, content, gateway, workers ----------
async function startClonePlatform() {
  const stack = stackEnv();
  const [authPort, contentPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${gatewayPort}`;
  const common = { ...stack, INTERNAL_SECRET, LOG_LEVEL: 'warn', PUBLIC_URL: publicUrl, NODE_ENV: 'production' };
  const authUrl = `http://127.0.0.1:${authPort}`;
  const databases = [unique('benchcloneauth'), unique('benchclonecontent'), unique('benchclonespeech')];
  const [authDb, contentDb, speechDb] = databases;
  const synthesisQueue = unique('benchclone');
  const app = (name) => path.join(root, 'apps', name, 'dist', 'main.js');
  const [auth, content] = await Promise.all([
    startProcess('auth', app('auth'), { ...common, PORT: String(authPort), MONGO_DB: authDb }),
    startProcess('content', app('content'), {
      ...common,
      PORT: String(contentPort),
      MONGO_DB: contentDb,
      KAFKA_TOPIC_PREFIX: `${unique('benchclone')}.`,
      REDIS_PREFIX: `${unique('benchclonec')}:`,
      AUTH_URL: authUrl,
    }),
  ]);
  const gateway = await startProcess('gateway', app('gateway'), {
    ...common,
    PORT: String(gatewayPort),
    AUTH_URL: authUrl,
    CONTENT_URL: `http://127.0.0.1:${contentPort}`,
    RATE_LIMIT_PREFIX: unique('benchclonerl'),
    SPEECH_MONGO_DB: speechDb,
    SYNTHESIS_QUEUE: synthesisQueue,
    SPEECH_KEY_PREFIX: unique('benchclonesp'),
    SPEECH_PLANS: JSON.stringify({ free: { voice_limit: VOICES + 1, max_voice_add_edits: VOICES + 1 } }),
    PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100000, concurrency: 10000 } }),
  });
  const workers = [];
  for (let i = 0; i < WORKERS; i += 1)
    workers.push(
      await startProcess('synthesis-worker', app('synthesis-worker'), {
        ...stack,
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        PORT: String(await freePort()),
        MONGO_DB: speechDb,
        SYNTHESIS_QUEUE: synthesisQueue,
        WORKER_REALTIME_STREAMS: '1',
      }),
    );
  const processes = [gateway, ...workers, auth, content];
  return {
    publicUrl,
    authUrl,
    gateway,
    async stop() {
      await Promise.allSettled(processes.map((p) => p.stop()));
      const mongo = new MongoClient(stack.MONGO_URL);
      try {
        await mongo.connect();
        for (const name of databases) await mongo.db(name).dropDatabase();
      } catch (err) {
        console.warn(`bench: could not drop this run's databases: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        await mongo.close().catch(() => undefined);
      }
    },
  };
}

/** A new account (registered through the gateway) and an API key for it (auth's internal API). */
async function apiKey(platform) {
  const email = `${unique('clone')}@example.com`;
  const registered = await fetch(`${platform.publicUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Clone bench', email, password: 'bench password 123' }),
  });
  if (registered.status !== 201) throw new Error(`register ${registered.status} ${await registered.text()}`);
  const { user } = await registered.json();
  const created = await fetch(`${platform.authUrl}/internal/accounts/${user.id}/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
    body: JSON.stringify({ name: 'clone bench' }),
  });
  if (created.status !== 201) throw new Error(`api key ${created.status} ${await created.text()}`);
  return (await created.json()).key;
}

async function addVoice(platform, key, sample, i) {
  const form = new FormData();
  form.append('name', `Bench voice ${i}`);
  for (let f = 0; f < FILES; f += 1)
    form.append('files', new Blob([new Uint8Array(sample)], { type: 'audio/wav' }), `sample-${f}.wav`);
  const started = performance.now();
  const res = await fetch(`${platform.publicUrl}/v1/voices/add`, {
    method: 'POST',
    headers: { 'xi-api-key': key },
    body: form,
  });
  const body = await res.text();
  const elapsed = performance.now() - started;
  if (res.status !== 200) throw new Error(`add ${i}: ${res.status} ${body}`);
  return elapsed;
}

console.log(`load average before: ${loadAverage()}`);
const sample = referenceSample();
console.log(
  `${VOICES} voices, ${FILES} file(s) of ${(sample.length / 1024).toFixed(0)} KiB each, ${WORKERS} worker(s)`,
);
const floorTimes = await floor(sample);
const platform = await startClonePlatform();
try {
  const key = await apiKey(platform);
  const pid = platform.gateway.child.pid;
  const before = memoryOf(pid);
  // One unmeasured add: connections, the queue's first job and the worker thread's start.
  await addVoice(platform, key, sample, 0);
  const clone = [];
  for (let i = 1; i <= VOICES; i += 1) clone.push(await addVoice(platform, key, sample, i));
  const after = memoryOf(pid);
  console.log(`floor (analyseClone in-process): ${summary(floorTimes)}`);
  console.log(`clone (POST /v1/voices/add):     ${summary(clone)}`);
  console.log(
    `overhead over the floor (medians): ${ms(
      percentile(
        [...clone].sort((a, b) => a - b),
        50,
      ) -
        percentile(
          [...floorTimes].sort((a, b) => a - b),
          50,
        ),
    )}`,
  );
  console.log(`gateway memory before: ${mib(before)}`);
  console.log(`gateway memory after:  ${mib(after)}`);
} finally {
  await platform.stop();
}
console.log(`load average after: ${loadAverage()}`);
