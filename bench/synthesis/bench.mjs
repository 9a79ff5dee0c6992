#!/usr/bin/env node
// Speech synthesis benchmark: time to first audio on /stream and on the WebSocket at 1, 10 and 50
// concurrent streams, beside the engine's own time to its first chunk called in-process (the
// floor) at the same concurrency; the real-time factor per job and per worker at each level;
// engine options (native process vs WebAssembly); throughput per worker. The model is the neural
// one (Piper on onnxruntime-node) unless --model espeak. Needs the stack (node scripts/stack.mjs
// up), the Piper voice (node scripts/fetch-voices.mjs) and a build
// (npx tsc -b libs/speech-engine libs/speech-jobs apps/synthesis-worker apps/gateway).
// Run it alone on the machine: every figure is a latency.
//
//   node bench/synthesis/bench.mjs [--model neural|espeak] [--levels 1,10,50] [--rounds 3]
//                                  [--workers 2] [--concurrency 2] [--threads 1] [--min-samples 30]
//                                  [--voice <premade voice_id>]
//   node bench/synthesis/bench.mjs --compare-voices [--rounds 80]
//     first audio at /stream, one stream at a time, for every English premade voice the neural model
//     speaks (each coloured to its voice) against its own uncoloured speaker, in interleaved rounds,
//     each ratio with its 90 % bootstrap interval
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stackEnv } from '../subscriptions/platform.mjs';
import { serveSpeechEdge } from './speech-edge.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const engine = require(path.join(root, 'libs/speech-engine/dist/index.js'));
const { Redis } = require('ioredis');
const WebSocket = require('ws');

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    workers: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '2' },
    model: { type: 'string', default: 'neural' },
    levels: { type: 'string', default: '1,10,50' },
    threads: { type: 'string', default: '1' },
    'min-samples': { type: 'string', default: '30' },
    voice: { type: 'string' },
    'compare-voices': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(args.rounds);
const TEXT = 'Hello there, thanks for calling. How can I help you today? I can read long texts too.';
const NEURAL = args.model === 'neural';
const MODEL_ID = NEURAL ? engine.NEURAL_MODEL_ID : engine.DEFAULT_MODEL_ID;
// Joe is the neural model's own speaker; Rachel an eSpeak NG voice, which the neural model speaks with
// her pitch and formants (the voice colour, on the model's thread): --voice 21m00Tcm4TlvDq8ikWAM
// measures that path.
const VOICE = args.voice ?? (NEURAL ? 'jo5Pq8Nr2Lm7Kv4Ws9Xz' : '21m00Tcm4TlvDq8ikWAM');
const FORMAT = 'mp3_44100_128';
const LEVELS = args.levels.split(',').map(Number);
const PIPER_DIR = process.env.PIPER_VOICES_DIR ?? path.join(root, '.stack/voices/piper');
if (NEURAL && !engine.piperModelAvailable(PIPER_DIR))
  throw new Error(`no Piper voice in ${PIPER_DIR} (node scripts/fetch-voices.mjs), or run with --model espeak`);

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;
const freePort = () =>
  new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
const sleep = (t) => new Promise((r) => setTimeout(r, t));

// ---------- in-process engine (the floor) ----------
const voice = engine.findPremadeVoice(VOICE);
const settings = engine.parseVoiceSettings({});
const params = engine.renderParams(voice.engine, settings);
const format = engine.resolveOutputFormat(FORMAT);
const loadStarted = performance.now();
const piper = NEURAL ? await engine.loadPiperVoice(PIPER_DIR, { threads: Number(args.threads) }) : null;
const piperLoadMs = performance.now() - loadStarted;
/** The engine of the benchmarked model, as the worker runs it: coloured to the voice on the model's thread. */
const colour = params.colour ?? engine.neuralColour(params);
const modelRequest = piper
  ? { pcmFor: (piece) => engine.synthesizePiperPcm(piper, piece, settings, undefined, false, 0, colour) }
  : {};

async function floorOnce() {
  const start = performance.now();
  let first = -1;
  await engine.synthesizeToStream({ text: TEXT, params, format, ...modelRequest }, () => {
    if (first < 0) first = performance.now() - start;
  });
  return first;
}

async function engineOptions() {
  const sentence = 'Hello there, thanks for calling.';
  const native = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    await engine.synthesizePcm(sentence, params);
    native.push(performance.now() - t);
  }
  const wasm = [];
  try {
    const { default: ESpeakNg } = await import('espeak-ng');
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const es = await ESpeakNg({ arguments: ['-w', 'out.wav', '-v', 'en-us', sentence] });
      es.FS.readFile('out.wav');
      wasm.push(performance.now() - t);
    }
  } catch (err) {
    console.log(`(WebAssembly build not available: ${err.message})`);
  }
  return { native: pct(native, 50), wasm: wasm.length ? pct(wasm, 50) : NaN };
}

async function throughput() {
  const long = Array.from(
    { length: 25 },
    (_, i) => `Sentence ${i + 1} of the throughput text is of ordinary length and punctuation.`,
  ).join(' ');
  const start = performance.now();
  const progress = await engine.synthesizeToStream({ text: long, params, format, ...modelRequest }, () => undefined);
  const seconds = (performance.now() - start) / 1000;
  return { chars: long.length, seconds, audio: progress.durationSeconds };
}

// ---------- the pipeline: workers + the gateway's speech edge ----------
async function startPipeline() {
  const env = stackEnv();
  const queue = `bench_synthesis_${Date.now().toString(36)}`;
  const prefix = `bench_speech_${Date.now().toString(36)}`;
  const redis = new Redis(env.REDIS_URL);
  const apiKey = 'sk_bench';
  const identity = {
    sub: 'acct_bench',
    roles: ['USER'],
    scope: 'speech:read speech:write',
    method: 'api_key',
    plan: 'pro',
  };
  const port = await freePort();
  const served = await serveSpeechEdge({
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'silent',
    port,
    redis,
    apiKey,
    identity,
    config: {
      REDIS_URL: env.REDIS_URL,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SYNTHESIS_QUEUE: queue,
      SPEECH_KEY_PREFIX: prefix,
      SPEECH_FRAME_TIMEOUT_MS: 60_000,
      // No wait bound: at 50 streams jobs queue for tens of seconds, and this benchmark measures that
      // (bench/capacity measures the refusals).
      SPEECH_QUEUE_WAIT_MS: 0,
      PIPER_VOICES_DIR: NEURAL ? PIPER_DIR : '',
    },
  });
  const workers = [];
  for (let i = 0; i < Number(args.workers); i++) {
    const wport = await freePort();
    const mport = await freePort();
    const child = spawn(process.execPath, [path.join(root, 'apps/synthesis-worker/dist/main.js')], {
      env: {
        PATH: process.env.PATH,
        LOG_LEVEL: 'warn',
        REDIS_URL: env.REDIS_URL,
        MONGO_URL: env.MONGO_URL,
        MONGO_DB: `${queue}_w`,
        PORT: String(wport),
        METRICS_PORT: String(mport),
        SYNTHESIS_QUEUE: queue,
        SPEECH_KEY_PREFIX: prefix,
        WORKER_CONCURRENCY: args.concurrency,
        WORKER_REALTIME_STREAMS: args.concurrency,
        PIPER_VOICES_DIR: NEURAL ? PIPER_DIR : '',
        NEURAL_INFERENCE_THREADS: args.threads,
      },
      stdio: 'ignore',
    });
    workers.push({ child, url: `http://127.0.0.1:${wport}`, metricsUrl: `http://127.0.0.1:${mport}` });
  }
  for (const w of workers) {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${w.url}/readyz`)).status === 200) break;
      } catch {
        // starting
      }
      if (i > 300) throw new Error('worker not ready');
      await sleep(100);
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}`,
    apiKey,
    workers,
    async stop() {
      await served.stop();
      for (const w of workers) w.child.kill('SIGTERM');
      const keys = await redis.keys(`bull:${queue}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });
function streamOnce(p, voiceId = VOICE) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(
      `${p.url}/v1/text-to-speech/${voiceId}/stream?output_format=${FORMAT}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let first = -1;
        const body = [];
        res.on('data', (chunk) => {
          if (first < 0) first = performance.now() - start;
          if (res.statusCode !== 200) body.push(chunk);
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(first)
            : reject(new Error(`status ${res.statusCode}: ${Buffer.concat(body).toString().slice(0, 300)}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ text: TEXT, model_id: MODEL_ID }));
  });
}

/**
 * One stream-input session: binary frames (the default for clients other than the official SDKs), or
 * `json`, the hosted API's JSON messages with alignment (what the official SDKs and voice agents get;
 * the worker times each piece, and a message carries a whole piece).
 */
async function wsSession(p, json = false) {
  const ws = new WebSocket(
    `${p.ws}/v1/text-to-speech/${VOICE}/stream-input?output_format=${FORMAT}&model_id=${MODEL_ID}${json ? '&message_format=json' : ''}`,
  );
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ text: ' ', xi_api_key: p.apiKey }));
  return new Promise((resolve, reject) => {
    let start = 0;
    let first = -1;
    ws.on('message', (data, isBinary) => {
      const audio = isBinary || (json && JSON.parse(String(data)).audio);
      if (audio && first < 0) first = performance.now() - start;
    });
    ws.on('close', (code) => (code === 1000 && first >= 0 ? resolve(first) : reject(new Error(`ws closed ${code}`))));
    // Text after initialisation: time runs from the text message to the first audio frame.
    setTimeout(() => {
      start = performance.now();
      ws.send(JSON.stringify({ text: TEXT, flush: true }));
      ws.send(JSON.stringify({ text: '' }));
    }, 20);
  });
}

/**
 * One context on `multi-stream-input`, as a voice agent speaks an utterance: the context opened, then
 * (time runs from here) its text, an empty flush and close_context back to back; first audio is the
 * first JSON message with audio.
 */
async function multiContextSession(p) {
  const ws = new WebSocket(
    `${p.ws}/v1/text-to-speech/${VOICE}/multi-stream-input?output_format=${FORMAT}&model_id=${MODEL_ID}`,
  );
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ text: ' ', context_id: 'c1', xi_api_key: p.apiKey }));
  return new Promise((resolve, reject) => {
    let start = 0;
    let first = -1;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.audio && first < 0) first = performance.now() - start;
      if (message.isFinal === true) ws.send(JSON.stringify({ close_socket: true }));
    });
    ws.on('close', (code) => (code === 1000 && first >= 0 ? resolve(first) : reject(new Error(`ws closed ${code}`))));
    setTimeout(() => {
      start = performance.now();
      ws.send(JSON.stringify({ text: TEXT, context_id: 'c1' }));
      ws.send(JSON.stringify({ context_id: 'c1', flush: true }));
      ws.send(JSON.stringify({ context_id: 'c1', close_context: true }));
    }, 20);
  });
}

/** The sum of a metric's samples (every label set) in a worker's Prometheus metrics (METRICS_PORT). */
async function workerMetric(w, name) {
  const text = await (await fetch(`${w.metricsUrl}/metrics`)).text();
  const samples = text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
  return samples.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** A worker's counters: characters synthesised, seconds of audio produced and seconds spent synthesising. */
async function workerCounters(w) {
  return {
    chars: await workerMetric(w, 'synthesis_characters_total'),
    audio: await workerMetric(w, 'synthesis_audio_seconds_total'),
    busy: await workerMetric(w, 'synthesis_job_run_seconds_sum'),
  };
}

/** The workers' counters summed: seconds of audio produced and seconds spent synthesising. */
async function workerTotals(p) {
  const all = await Promise.all(p.workers.map(workerCounters));
  return { audio: all.reduce((s, m) => s + m.audio, 0), busy: all.reduce((s, m) => s + m.busy, 0) };
}

/**
 * Floor, /stream and WebSocket samples taken in alternating rounds, so machine noise hits all three
 * alike; and the real-time factor of the workers over the /stream and WebSocket rounds: per job
 * (its synthesis time per second of its audio) and per worker (wall time of the rounds per second
 * of audio each worker produced).
 */
async function level(n, p) {
  const samples = { floor: [], stream: [], ws: [], wsJson: [], multi: [] };
  // At least --min-samples per level (one stream alone is a noisy figure), else ROUNDS rounds.
  const rounds = Math.max(ROUNDS, Math.ceil(Number(args['min-samples']) / n));
  const batch = (fn) => Promise.all(Array.from({ length: n }, fn));
  let wall = 0;
  const before = await workerTotals(p);
  for (let r = 0; r < rounds; r++) {
    samples.floor.push(...(await batch(floorOnce)));
    const start = performance.now();
    samples.stream.push(...(await batch(() => streamOnce(p))));
    samples.ws.push(...(await batch(() => wsSession(p))));
    samples.wsJson.push(...(await batch(() => wsSession(p, true))));
    samples.multi.push(...(await batch(() => multiContextSession(p))));
    wall += (performance.now() - start) / 1000;
  }
  const after = await workerTotals(p);
  const audio = after.audio - before.audio;
  const stats = (xs) => ({ p50: pct(xs, 50), p99: pct(xs, 99), n: xs.length });
  return {
    n,
    floor: stats(samples.floor),
    stream: stats(samples.stream),
    ws: stats(samples.ws),
    wsJson: stats(samples.wsJson),
    multi: stats(samples.multi),
    jobRtf: (after.busy - before.busy) / audio,
    workerRtf: (wall * p.workers.length) / audio,
  };
}

/** The neural model in-process: load time (a fresh session), first chunk of the same text, real-time factor. */
async function neural() {
  const dir = PIPER_DIR;
  if (!engine.piperModelAvailable(dir)) return null;
  const t0 = performance.now();
  const voice = piper ?? (await engine.loadPiperVoice(dir, { threads: Number(args.threads) }));
  const loadMs = piper ? piperLoadMs : performance.now() - t0;
  const firsts = [];
  let audio = 0;
  let busy = 0;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    let first = -1;
    const progress = await engine.synthesizeToStream(
      {
        text: TEXT,
        params,
        format,
        pcmFor: (piece) => engine.synthesizePiperPcm(voice, piece, settings, undefined, false, 0, colour),
      },
      () => {
        if (first < 0) first = performance.now() - start;
      },
    );
    firsts.push(first);
    busy += (performance.now() - start) / 1000;
    audio += progress.durationSeconds;
  }
  return { loadMs, first: pct(firsts, 50), rtf: busy / audio, chars: (TEXT.length * 3) / busy };
}

/** The pause before each stream of --compare-voices: the previous job's writes are done well within it. */
const SETTLE_MS = 250;

/** `xs` in an order of its own for each `seed` (a Park–Miller generator: the same order every run). */
function shuffled(xs, seed) {
  let state = (seed + 1) * 48271;
  const next = () => (state = (state * 48271) % 2147483647) / 2147483647;
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The 5th and 95th percentiles of p50(xs) ÷ p50(base) over 2,000 bootstrap resamples of the rounds
 * (each resample draws rounds with replacement, a round's two figures together): how far the run's
 * ratio may be from the voices' own, with the platform's noise.
 */
function ratioInterval(xs, base) {
  let state = 12345;
  const next = () => (state = (state * 48271) % 2147483647) / 2147483647;
  const ratios = [];
  for (let b = 0; b < 2000; b++) {
    const rounds = Array.from({ length: xs.length }, () => Math.floor(next() * xs.length));
    ratios.push(
      pct(
        rounds.map((r) => xs[r]),
        50,
      ) /
        pct(
          rounds.map((r) => base[r]),
          50,
        ),
    );
  }
  return [pct(ratios, 5), pct(ratios, 95)];
}

/**
 * --compare-voices: the English premade voices, which the neural model speaks each coloured to its
 * own pitch and formants, except the model's own speaker (Joe), the baseline.
 * One stream at a time, every voice once per round in a shuffled order, each after a pause that lets the
 * platform settle (SETTLE_MS), so machine noise falls on all alike.
 */
async function compareVoices() {
  if (!NEURAL) throw new Error('--compare-voices measures the neural model');
  const p = await startPipeline();
  try {
    // The premade voices (the bench's speech edge serves synthesis only, not the voice list).
    const english = engine.PREMADE_VOICES.filter((v) => /^en/.test(v.engine.voice)).map((v) => ({
      voice_id: v.voice_id,
      name: v.name,
    }));
    const baseline = english.find((v) => v.voice_id === 'jo5Pq8Nr2Lm7Kv4Ws9Xz');
    if (!baseline) throw new Error('the neural speaker (Joe) is not listed');
    for (const v of english) await streamOnce(p, v.voice_id); // warm each voice's path
    const samples = new Map(english.map((v) => [v.voice_id, []]));
    const rounds = Math.max(ROUNDS, 15);
    for (let r = 0; r < rounds; r++)
      // Each round in another order, so that no voice always follows the same one, and each stream after
      // the last one's bookkeeping (history, usage) is done: a stream's figure is its own, on a settled platform.
      for (const v of shuffled(english, r)) {
        await sleep(SETTLE_MS);
        samples.get(v.voice_id).push(await streamOnce(p, v.voice_id));
      }
    const joe = samples.get(baseline.voice_id);
    const base = pct(joe, 50);
    console.log(
      `\nfirst audio at /stream, one stream, ${rounds} rounds, p50 (ratio to ${baseline.name}, the uncoloured speaker, with its 90 % interval)`,
    );
    console.log('| voice | first audio p50 | p90 | ratio | 90 % interval |');
    console.log('|---|---|---|---|---|');
    for (const v of english) {
      const xs = samples.get(v.voice_id);
      const [low, high] = ratioInterval(xs, joe);
      console.log(
        `| ${v.name} | ${ms(pct(xs, 50))} | ${ms(pct(xs, 90))} | ${(pct(xs, 50) / base).toFixed(2)}× | ${low.toFixed(2)}–${high.toFixed(2)}× |`,
      );
    }
  } finally {
    await p.stop();
  }
}

const cpu = spawnSync('nproc').stdout?.toString().trim();
console.log(
  `speech synthesis benchmark — ${cpu} cores, node ${process.version}, model ${MODEL_ID}${NEURAL ? ` (${args.threads} thread(s) per inference)` : ''}, rounds ${ROUNDS}, ${args.workers} workers × concurrency ${args.concurrency}, text ${TEXT.length} chars, ${FORMAT}`,
);

const options = await engineOptions();
console.log(
  `\nengine options, one sentence to PCM (p50): native espeak-ng process ${ms(options.native)}, espeak-ng WebAssembly (npm espeak-ng 1.0.2) ${ms(options.wasm)} → native is ${(options.wasm / options.native).toFixed(1)}× faster`,
);

if (args['compare-voices']) {
  await compareVoices();
  process.exit(0);
}

await floorOnce(); // warm caches
const pipeline = await startPipeline();
await streamOnce(pipeline); // warm the queue and the workers
const rows = [];
for (const n of LEVELS) rows.push(await level(n, pipeline));
const metrics = await Promise.all(pipeline.workers.map(workerCounters));
await pipeline.stop();
const tp = await throughput();

console.log('\ntime to first audio byte (p50 / p99), and ratio of p50 to the in-process floor at the same concurrency');
console.log(
  '| concurrent | floor (in-process) | /stream | ratio | stream-input, binary | ratio | stream-input, JSON | multi-stream-input context (JSON) | ratio to stream-input JSON | RTF per job | RTF per worker |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const { n, floor, stream, ws, wsJson, multi, jobRtf, workerRtf } of rows) {
  console.log(
    `| ${n} | ${ms(floor.p50)} / ${ms(floor.p99)} | ${ms(stream.p50)} / ${ms(stream.p99)} | ${(stream.p50 / floor.p50).toFixed(2)}× (+${ms(stream.p50 - floor.p50)}) | ${ms(ws.p50)} / ${ms(ws.p99)} | ${(ws.p50 / floor.p50).toFixed(2)}× (+${ms(ws.p50 - floor.p50)}) | ${ms(wsJson.p50)} / ${ms(wsJson.p99)} | ${ms(multi.p50)} / ${ms(multi.p99)} | ${(multi.p50 / wsJson.p50).toFixed(2)}× | ${jobRtf.toFixed(3)} | ${workerRtf.toFixed(3)} |`,
  );
}
const chars = metrics.reduce((s, m) => s + m.chars, 0);
const busy = metrics.reduce((s, m) => s + m.busy, 0);
const audio = metrics.reduce((s, m) => s + m.audio, 0);
console.log(
  `\nthroughput, one engine run in-process: ${(tp.chars / tp.seconds).toFixed(0)} characters/s, real-time factor ${(tp.seconds / tp.audio).toFixed(3)} (${tp.audio.toFixed(1)} s of audio in ${tp.seconds.toFixed(2)} s)`,
);
console.log(
  `throughput, workers under the load above: ${(chars / busy).toFixed(0)} characters per job-second, real-time factor ${(busy / audio).toFixed(3)}; ${chars} characters over ${metrics.length} workers`,
);
const nn = await neural();
if (nn) {
  console.log(
    `\nneural model (Piper en_US-joe-medium, onnxruntime-node, ${args.threads} thread(s)), in-process: load ${ms(nn.loadMs)}; first chunk p50 ${ms(nn.first)} (3 runs after the throughput run; the table's floor at one stream: ${ms(rows[0].floor.p50)}); ${nn.chars.toFixed(0)} characters/s, real-time factor ${nn.rtf.toFixed(2)}`,
  );
} else {
  console.log('\nneural model: voice not fetched (node scripts/fetch-voices.mjs)');
}
process.exit(0);
