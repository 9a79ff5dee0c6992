#!/usr/bin/env node
// Neural model precision: the real-time factor per thread (inference seconds / audio seconds) of
// the Piper voice at fp32 and of its int8 variant (scripts/quantize-voice.mjs), in the same run,
// over the Harvard sentences of the quality meter, each run on the engine's inference thread with
// one ONNX Runtime thread as a worker runs it (NEURAL_INFERENCE_THREADS=1); then, with --wer, the
// word error rate of both through bench/quality (no latency in that part). The two models take
// turns sentence by sentence, in alternating order, so a drift in the machine's load falls on both.
// Needs a build (npx tsc -b libs/speech-engine) and the voice with its variant
// (node scripts/fetch-voices.mjs). Run it alone on the machine: the real-time factor is a latency.
//
//   node bench/neural-precision/bench.mjs [--sentences 20] [--rounds 3] [--wer] [--json]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_SENTENCES, SENTENCES } from '../quality/sentences.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const engine = createRequire(import.meta.url)(path.join(root, 'libs/speech-engine/dist/index.js'));

const { values: args } = parseArgs({
  options: {
    sentences: { type: 'string', default: String(DEFAULT_SENTENCES) },
    rounds: { type: 'string', default: '3' },
    wer: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const PIPER_DIR = process.env.PIPER_VOICES_DIR ?? path.join(root, '.stack/voices/piper');
const PRECISIONS = ['fp32', 'int8'];
const sentences = SENTENCES.slice(0, Number(args.sentences));
const rounds = Number(args.rounds);
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

const voices = {};
for (const precision of PRECISIONS) {
  voices[precision] = await engine.loadPiperVoice(PIPER_DIR, { threads: 1, precision });
  if (voices[precision].precision !== precision)
    throw new Error(`no ${precision} model in ${PIPER_DIR}: run node scripts/fetch-voices.mjs`);
}
const config = voices.fp32.config;
const sizes = {
  fp32: fs.statSync(path.join(PIPER_DIR, `${engine.PIPER_VOICE_FILE}.onnx`)).size,
  int8: fs.statSync(engine.modelAtPrecision(path.join(PIPER_DIR, `${engine.PIPER_VOICE_FILE}.onnx`), 'int8').path).size,
};
// Phonemes once, outside the timing: only the model's inference is measured. Noiseless scales, so
// both models get the same input and every round the same work.
const inputs = await Promise.all(
  sentences.map(async (text) => BigInt64Array.from(await engine.phonemeIds(text, config), (id) => BigInt(id))),
);
const scales = engine.piperScales(config, engine.DEFAULT_VOICE_SETTINGS, true);
const rate = config.audio.sample_rate;

// One warm-up inference each (first-run allocations are not what a serving worker pays).
for (const precision of PRECISIONS) await voices[precision].inference.run(inputs[0], scales);

const loadBefore = load();
const totals = Object.fromEntries(PRECISIONS.map((p) => [p, { inferenceS: 0, audioS: 0 }]));
let turn = 0;
for (let round = 0; round < rounds; round++) {
  for (const ids of inputs) {
    const order = turn++ % 2 === 0 ? PRECISIONS : [...PRECISIONS].reverse();
    for (const precision of order) {
      const started = performance.now();
      const pcm = await voices[precision].inference.run(ids, scales);
      totals[precision].inferenceS += (performance.now() - started) / 1000;
      totals[precision].audioS += pcm.length / rate;
    }
  }
}
const loadAfter = load();

const results = PRECISIONS.map((precision) => ({
  precision,
  modelMb: Math.round((sizes[precision] / 2 ** 20) * 10) / 10,
  inferenceS: Math.round(totals[precision].inferenceS * 100) / 100,
  audioS: Math.round(totals[precision].audioS * 100) / 100,
  rtf: Math.round((totals[precision].inferenceS / totals[precision].audioS) * 1000) / 1000,
}));
const ratio = Math.round((results[1].rtf / results[0].rtf) * 100) / 100;

// Word error rate through the quality meter (its own process: recogniser and venv are its concern).
let wer;
if (args.wer) {
  const out = execFileSync(
    process.execPath,
    [
      path.join(root, 'bench/quality/bench.mjs'),
      '--engines',
      'neural,neural-int8',
      '--sentences',
      args.sentences,
      '--json',
    ],
    { encoding: 'utf8', env: { ...process.env, PIPER_VOICES_DIR: PIPER_DIR }, maxBuffer: 16 << 20 },
  );
  wer = Object.fromEntries(
    JSON.parse(out).map((r) => [r.engine === 'neural' ? 'fp32' : 'int8', Math.round(r.wer * 1000) / 10]),
  );
}

if (args.json) {
  console.log(JSON.stringify({ sentences: sentences.length, rounds, loadBefore, loadAfter, results, ratio, wer }));
} else {
  console.log(
    `Piper ${engine.PIPER_VOICE_FILE}, 1 ONNX Runtime thread, ${sentences.length} Harvard sentences × ${rounds} rounds`,
  );
  console.log(`load average before ${loadBefore.join(' ')}, after ${loadAfter.join(' ')} (1, 5, 15 min)`);
  console.log('precision  model MB  inference s  audio s   RTF per thread' + (wer ? '   WER' : ''));
  for (const r of results)
    console.log(
      `${r.precision.padEnd(9)}  ${String(r.modelMb).padStart(8)}  ${String(r.inferenceS).padStart(11)}  ${String(r.audioS).padStart(7)}   ${r.rtf.toFixed(3).padStart(14)}` +
        (wer ? `   ${wer[r.precision].toFixed(1)} %` : ''),
    );
  console.log(`int8 / fp32 real-time factor: ${ratio}`);
}
// The inference threads are unref'd when idle, but say so plainly: the run is over.
await Promise.all(PRECISIONS.map((p) => voices[p].inference.close()));
