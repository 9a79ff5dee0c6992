#!/usr/bin/env node
// Real-time capacity benchmark: ramps concurrent neural `/stream` streams (about 600 characters each)
// past the workers' real-time slots and prints, per level, what a listener hears: first audio p50/p99,
// the longest silence after first audio per stream (p50/p99/max), refusals (503 + Retry-After), queue
// waits and the streams per core that stayed real-time, beside the in-process floor (the engine called
// directly, as bench/synthesis does, one inference thread per worker). With --soak <seconds> it holds
// 120 % of the capacity for that long instead and reports lock losses, duplicate computation and the
// memory (RSS) of the workers and the gateway edge over time.
//
// Needs the stack (node scripts/stack.mjs up), the Piper voice (node scripts/fetch-voices.mjs) and a
// build (npm run build). Run it alone on the machine: every figure is a latency. One command:
//
//   node bench/capacity/bench.mjs                     # ramp 1 … 2 × capacity, 3 workers
//   node bench/capacity/bench.mjs --soak 600          # the 10-minute soak at 120 % of capacity
//   node bench/capacity/bench.mjs --kill 5            # five rounds: capacity streams, the busiest worker SIGKILLed mid-stream
//                                 [--kill-after 3]  # once every stream has this many seconds of audio
//
// Options: [--workers 3] [--slots 0 (0: each worker calibrates at boot; N: WORKER_REALTIME_STREAMS=N)]
//          [--cores-per-worker <cores ÷ workers>] [--max-slots 16 (WORKER_CONCURRENCY)] [--threads 1]
//          [--levels 1,2,4] [--rounds 1] [--wait-ms 5000 (SPEECH_QUEUE_WAIT_MS)] [--chars 600]
//          [--voice <premade voice_id>] [--model neural|espeak]
//
// Silence is computed as a player would hear it: it starts playing at the first audio byte and plays
// each byte once at the format's rate (pcm_22050: 44 100 bytes per second); when the bytes that arrived
// are all played and the next have not arrived, the listener hears silence until they do.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { freePort, percentile, root, stackEnv, startProcess, unique } from '../subscriptions/platform.mjs';

const require = createRequire(import.meta.url);
const engine = require(path.join(root, 'libs/speech-engine/dist/index.js'));
const { Redis } = require('ioredis');

const CORES = os.availableParallelism();
const { values: args } = parseArgs({
  options: {
    workers: { type: 'string', default: '3' },
    slots: { type: 'string', default: '0' },
    'cores-per-worker': { type: 'string' },
    'max-slots': { type: 'string', default: '16' },
    threads: { type: 'string', default: '1' },
    levels: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    'wait-ms': { type: 'string', default: '5000' },
    chars: { type: 'string', default: '600' },
    voice: { type: 'string' },
    model: { type: 'string', default: 'neural' },
    soak: { type: 'string' },
    kill: { type: 'string' },
    'kill-after': { type: 'string', default: '3' },
  },
});
const WORKERS = Number(args.workers);
const NEURAL = args.model === 'neural';
const MODEL_ID = NEURAL ? engine.NEURAL_MODEL_ID : engine.DEFAULT_MODEL_ID;
// Joe is the neural model's own speaker (no voice colour), as in bench/synthesis.
const VOICE = args.voice ?? (NEURAL ? 'jo5Pq8Nr2Lm7Kv4Ws9Xz' : '21m00Tcm4TlvDq8ikWAM');
const FORMAT = 'pcm_22050';
const BYTES_PER_SECOND = 22_050 * 2;
/** A listener notices a gap above this (the issue's goal: none up to capacity). */
const AUDIBLE_MS = 250;
const PIPER_DIR = process.env.PIPER_VOICES_DIR ?? path.join(root, '.stack/voices/piper');
if (NEURAL && !engine.piperModelAvailable(PIPER_DIR))
  throw new Error(`no Piper voice in ${PIPER_DIR} (node scripts/fetch-voices.mjs), or run with --model espeak`);
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// ---------- texts: about --chars characters each, a different one per stream ----------
const SENTENCES = [
  'The river runs quietly past the old stone mill at the edge of the village.',
  'Every morning the baker opens the shop at six and sells warm bread to the people on their way to work.',
  'A stream of audio is real-time when each second of it is ready before the listener needs to hear it.',
  'The committee met on Thursday to discuss the budget for the new library and the repairs to the bridge.',
  'Far to the north, the mountains were already white with the first snow of the year.',
  'She opened the letter slowly, read it twice, and then put it back in the envelope without a word.',
  'Trains to the city leave every twenty minutes during the day and every hour after ten at night.',
  'Good evening, and welcome to the programme; tonight we look at how small towns are changing.',
];
function textFor(i) {
  let text = '';
  for (let k = i; text.length < Number(args.chars); k++) text += `${SENTENCES[k % SENTENCES.length]} `;
  return text.slice(0, Number(args.chars)).trim();
}

// ---------- what a listener hears ----------
/** Longest and total silence after the first audio, from chunk arrival times (ms) and sizes (bytes). */
function silences(arrivals) {
  let playedUntil = -1;
  let longest = 0;
  let total = 0;
  for (const { t, bytes } of arrivals) {
    const ms = (bytes / BYTES_PER_SECOND) * 1000;
    if (playedUntil < 0) playedUntil = t;
    else if (t > playedUntil) {
      longest = Math.max(longest, t - playedUntil);
      total += t - playedUntil;
      playedUntil = t;
    }
    playedUntil += ms;
  }
  return { longest, total };
}

/** The longest silence still going on at or after `atMs` (arrival times on the same clock). */
function longestSilenceAfter(arrivals, atMs) {
  let playedUntil = -1;
  let longest = 0;
  for (const { t, bytes } of arrivals) {
    if (playedUntil < 0) playedUntil = t;
    else if (t > playedUntil) {
      if (t >= atMs) longest = Math.max(longest, t - playedUntil);
      playedUntil = t;
    }
    playedUntil += (bytes / BYTES_PER_SECOND) * 1000;
  }
  return longest;
}

// ---------- the floor: the engine in-process, one inference thread per worker ----------
const settings = engine.parseVoiceSettings({});
const params = engine.renderParams(engine.findPremadeVoice(VOICE).engine, settings);
const format = engine.resolveOutputFormat(FORMAT);
const pipers = NEURAL
  ? await Promise.all(
      Array.from({ length: WORKERS }, () => engine.loadPiperVoice(PIPER_DIR, { threads: Number(args.threads) })),
    )
  : [];

async function floorOnce(i) {
  const start = performance.now();
  const arrivals = [];
  // Coloured to the voice on the model's thread, as the worker does.
  const colour = params.colour ?? engine.neuralColour(params);
  const pcmFor = NEURAL
    ? (piece) => engine.synthesizePiperPcm(pipers[i % WORKERS], piece, settings, undefined, false, 0, colour)
    : undefined;
  await engine.synthesizeToStream({ text: textFor(i), params, format, ...(pcmFor ? { pcmFor } : {}) }, (bytes) =>
    arrivals.push({ t: performance.now() - start, bytes: bytes.length }),
  );
  return { status: 200, first: arrivals[0]?.t ?? NaN, ...silences(arrivals) };
}

// ---------- the pipeline: the gateway's speech edge and the workers as processes ----------
async function startPipeline() {
  const env = stackEnv();
  const queue = unique('bench_capacity');
  const prefix = unique('bench_capacity_keys');
  const speechDb = unique('benchcapacity');
  const piperDir = NEURAL ? PIPER_DIR : '';
  const edgePort = await freePort();
  const edge = await startProcess('gateway-edge', path.join(root, 'bench/capacity/edge-server.mjs'), {
    PORT: String(edgePort),
    REDIS_URL: env.REDIS_URL,
    SYNTHESIS_QUEUE: queue,
    SPEECH_KEY_PREFIX: prefix,
    SPEECH_QUEUE_WAIT_MS: args['wait-ms'],
    PIPER_VOICES_DIR: piperDir,
  });
  const cores = args['cores-per-worker'] ?? (CORES / WORKERS).toFixed(2);
  const startWorker = async (i) => {
    const port = await freePort();
    const metricsPort = await freePort();
    const worker = await startProcess(`synthesis-worker-${i}`, path.join(root, 'apps/synthesis-worker/dist/main.js'), {
      LOG_LEVEL: 'warn',
      REDIS_URL: env.REDIS_URL,
      MONGO_URL: env.MONGO_URL,
      MONGO_DB: speechDb,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      SYNTHESIS_QUEUE: queue,
      SPEECH_KEY_PREFIX: prefix,
      PIPER_VOICES_DIR: piperDir,
      NEURAL_INFERENCE_THREADS: args.threads,
      WORKER_CONCURRENCY: args['max-slots'],
      WORKER_REALTIME_STREAMS: args.slots,
      WORKER_CORES: String(cores),
    });
    // Lock losses are warnings: count them from here on.
    const log = { lockLosses: 0 };
    worker.child.stdout.on('data', (chunk) => {
      for (const line of chunk.toString().split('\n'))
        if (/could not renew lock|lost by its worker|missing lock/i.test(line)) log.lockLosses++;
    });
    return { ...worker, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, log };
  };
  const workers = [];
  // One after the other: a worker calibrates alone, not against the others' calibrations.
  for (let i = 0; i < WORKERS; i++) workers.push(await startWorker(i));
  const redis = new Redis(env.REDIS_URL);
  return {
    url: edge.url,
    edge,
    workers,
    cores,
    startWorker,
    async stop() {
      await Promise.all([edge.stop(), ...workers.map((w) => w.stop())]);
      const keys = await redis.keys(`bull:${queue}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      const mongo = await MongoClient.connect(env.MONGO_URL);
      await mongo.db(speechDb).dropDatabase();
      await mongo.close();
    },
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1000 });
/** One `/stream` request: its status, Retry-After, first audio (ms after sending) and silences. */
function streamOnce(p, i) {
  return new Promise((resolve) => {
    const start = performance.now();
    const req = http.request(
      `${p.url}/v1/text-to-speech/${VOICE}/stream?output_format=${FORMAT}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        const arrivals = [];
        res.on('data', (chunk) => arrivals.push({ t: performance.now() - start, bytes: chunk.length }));
        res.on('end', () => {
          if (res.statusCode !== 200)
            return resolve({ status: res.statusCode, retryAfter: Number(res.headers['retry-after'] ?? NaN) });
          resolve({ status: 200, first: arrivals[0]?.t ?? NaN, ...silences(arrivals) });
        });
        res.on('error', (err) => resolve({ status: 0, error: err.message }));
      },
    );
    req.on('error', (err) => resolve({ status: 0, error: err.message }));
    req.end(JSON.stringify({ text: textFor(i), model_id: MODEL_ID }));
  });
}

// ---------- the workers' metrics ----------
/** Every sample of `name` (with its labels) in a Prometheus text exposition. */
function samples(text, name) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    out.push({ labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return out;
}
const sum = (xs) => xs.reduce((s, x) => s + x.value, 0);

/** The workers' counters summed: slots, queue-wait histogram, jobs by outcome. */
async function workerSnapshot(p) {
  const texts = await Promise.all(p.workers.map(async (w) => (await fetch(w.metricsUrl)).text()));
  const all = (name) => texts.flatMap((t) => samples(t, name));
  const buckets = new Map();
  for (const s of all('synthesis_job_wait_seconds_bucket'))
    buckets.set(s.labels.le, (buckets.get(s.labels.le) ?? 0) + s.value);
  const outcomes = {};
  for (const s of all('synthesis_jobs_total')) outcomes[s.labels.outcome] = (outcomes[s.labels.outcome] ?? 0) + s.value;
  return {
    slots: sum(all('synthesis_worker_realtime_slots')),
    waitSum: sum(all('synthesis_job_wait_seconds_sum')),
    waitCount: sum(all('synthesis_job_wait_seconds_count')),
    buckets,
    outcomes,
    lockLosses: p.workers.reduce((s, w) => s + w.log.lockLosses, 0),
  };
}

/** Queue waits between two snapshots: mean, and the bucket bound the p99 falls under (seconds). */
function waits(before, after) {
  const count = after.waitCount - before.waitCount;
  const bounds = [...after.buckets.keys()].sort((a, b) => Number(a) - Number(b));
  const p99 = bounds.find((le) => after.buckets.get(le) - (before.buckets.get(le) ?? 0) >= 0.99 * count);
  return {
    mean: count ? (after.waitSum - before.waitSum) / count : NaN,
    p99Under: p99 === '+Inf' ? Infinity : Number(p99),
  };
}

const delta = (before, after, outcome) => (after.outcomes[outcome] ?? 0) - (before.outcomes[outcome] ?? 0);
const fmt = (x) => (Number.isFinite(x) ? `${Math.round(x)}` : '-');
const spread = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s.length ? s[s.length - 1] : NaN };
};

// ---------- the ramp ----------
async function level(p, n) {
  const floor = [];
  const pipe = [];
  let before;
  let after;
  for (let r = 0; r < Number(args.rounds); r++) {
    floor.push(...(await Promise.all(Array.from({ length: n }, (_, i) => floorOnce(i)))));
    const snap = await workerSnapshot(p);
    before ??= snap;
    pipe.push(...(await Promise.all(Array.from({ length: n }, (_, i) => streamOnce(p, i)))));
    after = await workerSnapshot(p);
  }
  const admitted = pipe.filter((s) => s.status === 200);
  const refused = pipe.filter((s) => s.status === 503);
  const realTime = admitted.filter((s) => s.longest <= AUDIBLE_MS).length / Number(args.rounds);
  return {
    n,
    admitted: admitted.length,
    refused: refused.length,
    refusedWithRetryAfter: refused.filter((s) => Number.isFinite(s.retryAfter)).length,
    failed: pipe.length - admitted.length - refused.length,
    floorFirst: spread(floor.map((s) => s.first)),
    floorSilence: spread(floor.map((s) => s.longest)),
    first: spread(admitted.map((s) => s.first)),
    silence: spread(admitted.map((s) => s.longest)),
    audible: admitted.filter((s) => s.longest > AUDIBLE_MS).length,
    wait: waits(before, after),
    perCore: realTime / CORES,
  };
}

function defaultLevels(capacity) {
  const top = Math.max(2, 2 * capacity);
  if (top <= 12) return Array.from({ length: top }, (_, i) => i + 1);
  return [...new Set([1, Math.round(capacity / 2), capacity, capacity + 1, Math.round(1.5 * capacity), top])].sort(
    (a, b) => a - b,
  );
}

async function ramp(p, capacity) {
  const levels = args.levels ? args.levels.split(',').map(Number) : defaultLevels(capacity);
  const rows = [];
  for (const n of levels) {
    const row = await level(p, n);
    rows.push(row);
    console.log(
      `  ${n} streams: ${row.admitted} admitted, ${row.refused} refused, longest silence max ${fmt(row.silence.max)} ms`,
    );
  }
  console.log(
    `\ncapacity ${capacity} real-time slots over ${WORKERS} workers (${p.cores} cores each by WORKER_CORES; machine: ${CORES} cores); ms unless said`,
  );
  console.log(
    '| streams | admitted / refused (with Retry-After) / failed | first audio p50 / p99: floor | pipeline | longest silence p50 / p99 / max: floor | pipeline | streams with silence > 250 ms | queue wait mean / p99 ≤ (s) | real-time streams per core |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.n} | ${r.admitted} / ${r.refused} (${r.refusedWithRetryAfter}) / ${r.failed} | ${fmt(r.floorFirst.p50)} / ${fmt(r.floorFirst.p99)} | ${fmt(r.first.p50)} / ${fmt(r.first.p99)} | ${fmt(r.floorSilence.p50)} / ${fmt(r.floorSilence.p99)} / ${fmt(r.floorSilence.max)} | ${fmt(r.silence.p50)} / ${fmt(r.silence.p99)} / ${fmt(r.silence.max)} | ${r.audible} | ${r.wait.mean.toFixed(2)} / ${r.wait.p99Under} | ${r.perCore.toFixed(2)} |`,
    );
  }
}

// ---------- the soak: 120 % of capacity for --soak seconds ----------
/** Resident set size of a process (MB), from /proc. */
function rssMb(pid) {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? NaN) / 1024;
}

async function soak(p, capacity, seconds) {
  const listeners = Math.ceil(1.2 * capacity);
  console.log(
    `\nsoak: ${listeners} listeners (120 % of ${capacity} slots) for ${seconds} s; each starts its next stream when one ends, or after Retry-After when refused`,
  );
  const before = await workerSnapshot(p);
  const results = [];
  const memory = [];
  const processes = [
    { name: 'gateway-edge', pid: p.edge.child.pid },
    ...p.workers.map((w) => ({ name: w.name, pid: w.child.pid })),
  ];
  const started = performance.now();
  const end = started + seconds * 1000;
  const sample = () =>
    memory.push({ t: (performance.now() - started) / 1000, rss: processes.map((x) => rssMb(x.pid)) });
  sample();
  const sampler = setInterval(sample, 10_000);
  await Promise.all(
    Array.from({ length: listeners }, async (_, k) => {
      for (let i = k; performance.now() < end; i += listeners) {
        const result = await streamOnce(p, i);
        results.push(result);
        if (result.status === 503)
          await new Promise((r) => setTimeout(r, 1000 * (Number.isFinite(result.retryAfter) ? result.retryAfter : 1)));
      }
    }),
  );
  clearInterval(sampler);
  sample();
  const after = await workerSnapshot(p);
  const admitted = results.filter((s) => s.status === 200);
  const silence = spread(admitted.map((s) => s.longest));
  console.log(
    `streams: ${admitted.length} complete, ${results.filter((s) => s.status === 503).length} refused, ${results.filter((s) => s.status !== 200 && s.status !== 503).length} failed`,
  );
  console.log(
    `longest silence after first audio (ms): p50 ${fmt(silence.p50)}, p99 ${fmt(silence.p99)}, max ${fmt(silence.max)}; streams with silence > ${AUDIBLE_MS} ms: ${admitted.filter((s) => s.longest > AUDIBLE_MS).length}`,
  );
  console.log(
    `lock losses (worker warnings "could not renew lock" / "lost by its worker"): ${after.lockLosses - before.lockLosses}`,
  );
  console.log(
    `duplicate computation (jobs taken_over + duplicate outcomes): ${delta(before, after, 'taken_over') + delta(before, after, 'duplicate')} (taken_over ${delta(before, after, 'taken_over')}, duplicate ${delta(before, after, 'duplicate')})`,
  );
  console.log(`\nresident memory (MB) every ~60 s: ${processes.map((x) => x.name).join(', ')}`);
  let next = 0;
  for (const m of memory) {
    if (m.t + 1e-9 < next && m !== memory[memory.length - 1]) continue;
    console.log(`  ${m.t.toFixed(0).padStart(4)} s: ${m.rss.map((r) => r.toFixed(0)).join(', ')}`);
    next = m.t + 60;
  }
  // Growth after a minute of warm-up (ONNX Runtime's buffers, the JIT), per process.
  const warm = memory.find((m) => m.t >= 60) ?? memory[0];
  const last = memory[memory.length - 1];
  console.log(
    `growth after the first minute (MB): ${processes.map((x, i) => `${x.name} ${(last.rss[i] - warm.rss[i]).toFixed(1)}`).join(', ')}`,
  );
}

// ---------- kills: capacity streams, the busiest worker SIGKILLed mid-stream ----------
/** A `/stream` request whose arrivals (absolute `performance.now()` ms) can be watched while it runs. */
function trackedStream(p, i) {
  const arrivals = [];
  const done = new Promise((resolve) => {
    const req = http.request(
      `${p.url}/v1/text-to-speech/${VOICE}/stream?output_format=${FORMAT}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.on('data', (chunk) => arrivals.push({ t: performance.now(), bytes: chunk.length }));
        res.on('end', () => resolve({ status: res.statusCode, complete: res.complete }));
        res.on('error', () => resolve({ status: 0, complete: false }));
      },
    );
    req.on('error', () => resolve({ status: 0, complete: false }));
    req.end(JSON.stringify({ text: textFor(i), model_id: MODEL_ID }));
  });
  return { arrivals, done };
}

async function kills(p, capacity, rounds) {
  console.log(
    `\nkills: ${rounds} rounds of ${capacity} streams (the slots); once every stream has ${args['kill-after']} s of audio, the worker with the most jobs in hand is SIGKILLed (replaced after the round)`,
  );
  const silencesAfterKill = [];
  let failed = 0;
  let killedStreams = 0;
  for (let r = 0; r < rounds; r++) {
    const live = Array.from({ length: capacity }, (_, i) => trackedStream(p, r * capacity + i));
    const audioBytes = (s) => s.arrivals.reduce((n, a) => n + a.bytes, 0);
    while (!live.every((s) => audioBytes(s) >= Number(args['kill-after']) * BYTES_PER_SECOND))
      await new Promise((res) => setTimeout(res, 20));
    const inUse = await Promise.all(
      p.workers.map(async (w) =>
        sum(samples(await (await fetch(w.metricsUrl)).text(), 'synthesis_worker_realtime_slots_in_use')),
      ),
    );
    const victim = p.workers[inUse.indexOf(Math.max(...inUse))];
    const killAt = performance.now();
    victim.child.kill('SIGKILL');
    killedStreams += Math.max(...inUse);
    p.workers.splice(p.workers.indexOf(victim), 1);
    const results = await Promise.all(live.map((s) => s.done));
    // Replaced once the round is over: on one machine its boot calibration would compete with the streams
    // (on a cluster it boots on a node of its own); the survivors' takeover slots carry the killed streams.
    p.workers.push(await p.startWorker(`r${r}`));
    failed += results.filter((x) => x.status !== 200 || !x.complete).length;
    for (const s of live) silencesAfterKill.push(longestSilenceAfter(s.arrivals, killAt));
    console.log(
      `  round ${r + 1}: killed ${victim.name} holding ${Math.max(...inUse)} of ${capacity} streams; longest silence after the kill per stream (ms): ${live.map((s) => fmt(longestSilenceAfter(s.arrivals, killAt))).join(', ')}`,
    );
  }
  const sp = spread(silencesAfterKill);
  console.log(`streams: ${silencesAfterKill.length} (${killedStreams} on a killed worker), failed or cut: ${failed}`);
  console.log(
    `longest silence after the kill (ms), every stream: p50 ${fmt(sp.p50)}, p99 ${fmt(sp.p99)}, max ${fmt(sp.max)}`,
  );
}

// ---------- main ----------
const cpu = spawnSync('nproc').stdout?.toString().trim();
console.log(
  `real-time capacity benchmark — ${cpu} cores, node ${process.version}, model ${MODEL_ID}, voice ${VOICE}, ${WORKERS} workers, ${args.chars}-character texts as ${FORMAT}, SPEECH_QUEUE_WAIT_MS ${args['wait-ms']}`,
);
console.log(`load average before: ${loadAverage()}`);
const pipeline = await startPipeline();
try {
  const capacity = (await workerSnapshot(pipeline)).slots;
  await streamOnce(pipeline, 0); // warm the queue and a worker
  await floorOnce(0);
  if (args.soak) await soak(pipeline, capacity, Number(args.soak));
  else if (args.kill) await kills(pipeline, capacity, Number(args.kill));
  else await ramp(pipeline, capacity);
} finally {
  await pipeline.stop();
  await Promise.all(pipers.map((v) => v.inference.close()));
}
console.log(`load average after: ${loadAverage()}`);
process.exit(0);
