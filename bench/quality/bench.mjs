#!/usr/bin/env node
// Speech quality meter: word error rate of an offline recogniser (PocketSphinx, English model from
// its PyPI wheel; see recogniser.mjs) over the Harvard sentences (sentences.mjs), for eSpeak NG,
// the neural model as its own speaker, and the neural model with another voice's pitch and formants
// applied (voice-colour.ts). The engine runs in this process, as the worker runs it; audio goes to the
// recogniser as 16 kHz mono PCM (the engine's own pcm_16000 output). Needs a build
// (npx tsc -b libs/speech-engine) and the Piper voice (node scripts/fetch-voices.mjs); creates
// .stack/quality-venv on first run. No latency is measured: it may run beside other work.
// --voices all (or a comma list of names) prints the voice table instead (voices.mjs): on the neural
// model, Joe uncoloured, every English premade voice and two clones coloured, with each one's WER,
// its difference to Joe's, its output's median F0 against the voice's target, its formants' shift
// against Joe's (formant-warp.mjs) beside the colour's ratio, and its spectral centroid against
// Joe's. Each voice colours Joe's noiseless rendering, as the worker does (a coloured voice is always
// rendered without the model's sampling noise); Joe is rendered as users hear him, with that noise,
// anew each run (--runs N averages N runs: two renderings differ by several WER points), or
// noiseless with --seeded, when every voice colours exactly Joe's audio and the difference is the
// colour's alone.
//
//   node bench/quality/bench.mjs [--sentences 20] [--engines espeak,neural,neural-coloured,neural-int8] [--json] [--verbose]
//   node bench/quality/bench.mjs --voices all [--sentences 20] [--seeded] [--runs 1] [--json]
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureRecogniser, recognise } from './recogniser.mjs';
import { DEFAULT_SENTENCES, SENTENCES } from './sentences.mjs';
import { formantWarp } from './formant-warp.mjs';
import { measureVoice, neuralVoiceTable } from './voices.mjs';
import { wordErrorRate } from './wer.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const engine = require(path.join(root, 'libs/speech-engine/dist/index.js'));

const { values: args } = parseArgs({
  options: {
    sentences: { type: 'string', default: String(DEFAULT_SENTENCES) },
    engines: { type: 'string', default: 'espeak,neural,neural-coloured' },
    voice: { type: 'string', default: 'Rachel' },
    voices: { type: 'string' },
    seeded: { type: 'boolean', default: false },
    runs: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
/** Joe's noiseless rendering of each piece: what a coloured voice is made from (the worker renders it so). */
const noiseless = new Map();

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
  return neural ? speakNeural(v.engine, v.settings, text, precision) : speakEspeak(v, text);
}

async function speakEspeak(v, text) {
  const settings = { ...engine.DEFAULT_VOICE_SETTINGS, ...v.settings };
  return render({ text, params: engine.renderParams(v.engine, settings), format });
}

/** The neural model speaking `text` as a voice: coloured to it on the inference thread (none for Joe). */
async function speakNeural(voiceEngine, voiceSettings, text, precision = 'fp32') {
  const settings = { ...engine.DEFAULT_VOICE_SETTINGS, ...voiceSettings };
  const params = engine.renderParams(voiceEngine, settings);
  const colour = params.colour ?? engine.neuralColour(params);
  const piper = await engine.loadPiperVoice(PIPER_DIR, { precision });
  const pcmFor = (piece) => engine.synthesizePiperPcm(piper, piece, settings, undefined, false, 0, colour);
  return render({ text, params, format, pcmFor });
}

/** pcm_16000 pieces (16-bit little-endian bytes) as one Int16Array. */
function pcm16(pieces) {
  const bytes = Buffer.concat(pieces);
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1).slice();
}

/** 16 kHz PCM read `ratio` times as fast: every frequency, formants included, × ratio. */
function resampledBy(pcm, ratio) {
  if (ratio === 1) return pcm;
  const resampler = new engine.Resampler(16_000 * ratio, 16_000);
  const head = resampler.push(pcm);
  const tail = resampler.end();
  return Int16Array.from([...head, ...tail], (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

async function render(request) {
  const chunks = [];
  await engine.synthesizeToStream(request, (bytes) => chunks.push(bytes));
  return Buffer.concat(chunks);
}

if (args.voices) {
  await voiceTable();
  process.exit(0);
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

/** WER, its difference to Joe's, and median F0 and formants against each voice's target (voices.mjs). */
async function voiceTable() {
  if (!engine.piperModelAvailable(PIPER_DIR))
    throw new Error(`no Piper voice in ${PIPER_DIR}: run node scripts/fetch-voices.mjs`);
  const analysis = require(path.join(root, 'libs/voice-analysis/dist/index.js'));
  const voices = await neuralVoiceTable(engine, analysis, args.voices === 'all' ? null : args.voices.split(','));
  await ensureRecogniser();
  const piper = await engine.loadPiperVoice(PIPER_DIR);
  const runs = [];
  // A coloured voice is deterministic (it colours Joe's noiseless rendering): measured in the first
  // run only; later runs render and measure Joe again.
  for (let run = 0; run < Number(args.runs); run++) runs.push(await voiceRun(voices, piper, analysis, runs[0]));
  // Per voice: WER and its difference to Joe's averaged over the runs (each run a new rendering of
  // Joe, unless --seeded), the differences of each run, and the last run's pitch and formants.
  const rows = runs.at(-1).map((last, i) => {
    const wers = runs.map((r) => r[i].wer);
    const diffs = runs.map((r) => r[i].wer - r[0].wer);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return { ...last, wer: mean(wers), werVsJoe: mean(diffs), werVsJoeRuns: diffs };
  });
  if (args.json) return console.log(JSON.stringify(rows));
  console.log(
    `PocketSphinx word error rate over ${sentences.length} Harvard sentences, neural model (lower is better), mean of ${runs.length} run(s)`,
  );
  console.log(
    'voice            WER      vs Joe   median F0 (target)      formants vs Joe (target; exact shift measures)   centroid vs Joe',
  );
  for (const r of rows) {
    const target = r.targetHz ? `(${r.targetHz.toFixed(0)} Hz, ${(100 * (r.f0Hz / r.targetHz - 1)).toFixed(1)} %)` : '';
    const formants = `×${r.formantWarp.toFixed(3)} (×${r.formantTarget.toFixed(3)}; ×${r.formantExact.toFixed(3)})`;
    const signed = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
    const runsText = runs.length > 1 && r.voice !== 'Joe' ? `  runs: ${r.werVsJoeRuns.map(signed).join(' ')}` : '';
    console.log(
      `${r.voice.padEnd(16)} ${(100 * r.wer).toFixed(1).padStart(5)} %  ${r.voice === 'Joe' ? '     —' : signed(r.werVsJoe).padStart(6)}   ${r.f0Hz.toFixed(0).padStart(4)} Hz ${target.padEnd(18)}  ${formants.padEnd(47)}  ×${r.centroidVsJoe.toFixed(2)}${runsText}`,
    );
  }
}

/** One run: Joe as served, and each voice coloured; each one's WER, pitch, formants and centroid. */
async function voiceRun(voices, piper, analysis, first) {
  // Joe's sampled rendering of each piece, made once per run (unless --seeded), as users hear him.
  const joes = new Map();
  const rows = [];
  for (const [index, v] of voices.entries()) {
    const settings = { ...engine.DEFAULT_VOICE_SETTINGS, ...v.settings };
    const params = engine.renderParams(v.engine, settings);
    const colour = params.colour ?? engine.neuralColour(params);
    if (colour && first) {
      rows.push({ ...first[index] });
      continue;
    }
    const rendered = async (cache, piece, deterministic) => {
      if (!cache.has(piece))
        cache.set(
          piece,
          await engine.synthesizePiperPcm(piper, piece, engine.DEFAULT_VOICE_SETTINGS, undefined, deterministic),
        );
      return cache.get(piece);
    };
    const pcmFor = async (piece) =>
      colour
        ? engine.applyVoiceColour(await rendered(noiseless, piece, true), colour)
        : rendered(args.seeded ? noiseless : joes, piece, args.seeded);
    const audio = [];
    for (const text of sentences)
      audio.push(await render({ text, params: { ...params, neural: 'joe' }, format, pcmFor }));
    const wer = wordErrorRate(sentences, await recognise(audio));
    rows.push({
      voice: v.name,
      targetHz: v.targetHz,
      formantTarget: colour?.formantRatio ?? 1,
      wer,
      pcm: pcm16(audio),
      ...(await measureVoice(engine, analysis, audio)),
    });
  }
  const joe = rows[0];
  for (const r of rows) {
    // A voice carried over from the first run keeps what was measured against that run's Joe.
    if (!r.pcm) continue;
    r.centroidVsJoe = r.centroidHz / joe.centroidHz;
    // Formants: the voice's warp against Joe's, beside the warp the same estimator gives an exact shift
    // of Joe's formants by the voice's ratio (Joe resampled by it): the two should agree.
    r.formantWarp = formantWarp(joe.pcm, r.pcm);
    r.formantExact = formantWarp(joe.pcm, resampledBy(joe.pcm, r.formantTarget));
  }
  for (const r of rows) delete r.pcm;
  return rows;
}
