#!/usr/bin/env node
// Speech quality meter: word error rate of an offline recogniser (PocketSphinx, English model from
// its PyPI wheel; see recogniser.mjs) over the Harvard sentences (sentences.mjs), for eSpeak NG,
// the neural model as its own speaker, and the neural model with another voice's pitch and formants
// applied (voice-colour.ts). The engine runs in this process, as the worker runs it; audio goes to the
// recogniser as 16 kHz mono PCM (the engine's own pcm_16000 output). Needs a build
// (npx tsc -b libs/speech-engine) and the Piper voice (node scripts/fetch-voices.mjs); creates
// .stack/quality-venv on first run. No latency is measured: it may run beside other work.
//
//   node bench/quality/bench.mjs [--sentences 20] [--engines espeak,neural,neural-coloured,neural-int8] [--json] [--verbose]
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureRecogniser, recognise } from './recogniser.mjs';
import { SENTENCES } from './sentences.mjs';
import { wordErrorRate } from './wer.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const engine = createRequire(import.meta.url)(path.join(root, 'libs/speech-engine/dist/index.js'));

const { values: args } = parseArgs({
  options: {
    sentences: { type: 'string', default: String(SENTENCES.length) },
    engines: { type: 'string', default: 'espeak,neural,neural-coloured' },
    voice: { type: 'string', default: 'Rachel' },
    json: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const PIPER_DIR = process.env.PIPER_VOICES_DIR ?? path.join(root, '.stack/voices/piper');
const sentences = SENTENCES.slice(0, Number(args.sentences));
const format = engine.resolveOutputFormat('pcm_16000');
const voice = (name) => engine.PREMADE_VOICES.find((v) => v.name === name);
// --voice (default Rachel: eSpeak NG's f3, about 220 Hz, the farthest of the premade voices from the
// neural speaker's 90 Hz) speaks through eSpeak NG and, coloured, through the neural model; Joe is the
// neural speaker himself.
const chosen = voice(args.voice);
if (!chosen) throw new Error(`no premade voice ${args.voice}`);
const ENGINES = {
  espeak: { voice: chosen, neural: false },
  neural: { voice: voice('Joe'), neural: true },
  'neural-coloured': { voice: chosen, neural: true },
  // The neural speaker from the model's int8 variant (NEURAL_PRECISION=int8; scripts/quantize-voice.mjs).
  'neural-int8': { voice: voice('Joe'), neural: true, precision: 'int8' },
};

async function speak(name, text) {
  const { voice: v, neural, precision } = ENGINES[name];
  const settings = { ...engine.DEFAULT_VOICE_SETTINGS, ...v.settings };
  const params = engine.renderParams(v.engine, settings);
  let pcmFor;
  if (neural) {
    const piper = await engine.loadPiperVoice(PIPER_DIR, { precision });
    pcmFor = (piece) => engine.synthesizePiperPcm(piper, piece, settings);
  }
  const chunks = [];
  await engine.synthesizeToStream({ text, params, format, ...(pcmFor ? { pcmFor } : {}) }, (bytes) =>
    chunks.push(bytes),
  );
  return Buffer.concat(chunks);
}

const names = args.engines.split(',');
for (const name of names)
  if (!ENGINES[name]) throw new Error(`unknown engine ${name}; one of ${Object.keys(ENGINES).join(', ')}`);
if (names.some((n) => ENGINES[n].neural) && !engine.piperModelAvailable(PIPER_DIR))
  throw new Error(`no Piper voice in ${PIPER_DIR}: run node scripts/fetch-voices.mjs`);
await ensureRecogniser();

const results = [];
for (const name of names) {
  const audio = [];
  for (const text of sentences) audio.push(await speak(name, text));
  const hypotheses = await recognise(audio);
  const seconds = audio.reduce((s, a) => s + a.length / 2 / 16000, 0);
  results.push({
    engine: name,
    voice: ENGINES[name].voice.name,
    sentences: sentences.length,
    audioSeconds: Math.round(seconds * 10) / 10,
    wer: wordErrorRate(sentences, hypotheses),
    hypotheses,
  });
}

if (args.json) {
  console.log(JSON.stringify(results));
} else {
  console.log(`PocketSphinx word error rate over ${sentences.length} Harvard sentences (lower is better)`);
  console.log('engine            voice    audio s   WER');
  for (const r of results)
    console.log(
      `${r.engine.padEnd(17)} ${r.voice.padEnd(8)} ${String(r.audioSeconds).padStart(7)}   ${(100 * r.wer).toFixed(1)} %`,
    );
  if (args.verbose)
    for (const r of results) r.hypotheses.forEach((h, i) => console.log(`${r.engine}: ${sentences[i]} -> ${h}`));
}
