// The voices the quality meter's voice table (`--voices`) speaks on the neural model: the model's own
// speaker (Joe, uncoloured), every English premade voice coloured to its pitch and formants, and two
// clones derived as the gateway derives them (libs/voice-analysis `analyseClone`) from a female and
// a male recording: eSpeak NG speaking the cloning tests' reference text (tests/voices/audio.ts), the
// only recordings available offline. Each voice carries the median F0 its labels put it at, which
// the output's is measured against.
import { execFileSync } from 'node:child_process';

/** The cloning tests' reference sentence (tests/voices/audio.ts REFERENCE_TEXT). */
const REFERENCE_TEXT =
  'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore, and the shells she sells are surely sea shells.';

/** The cloning tests' recordings: eSpeak NG voice and pitch. */
const CLONE_RECORDINGS = [
  { name: 'clone (female)', espeak: 'en+f2', pitch: 70 },
  { name: 'clone (male)', espeak: 'en+m3', pitch: 30 },
];

/**
 * `{ name, engine: EngineVoiceParams, settings, targetHz }` per voice, Joe first (targetHz null: he
 * speaks at his own pitch). `only`: voice names to keep (Joe is always kept: the table's reference).
 */
export async function neuralVoiceTable(engine, analysis, only) {
  const voices = [];
  const joe = engine.PREMADE_VOICES.find((v) => v.name === 'Joe');
  voices.push({ name: 'Joe', engine: joe.engine, settings: joe.settings, targetHz: null });
  for (const v of engine.PREMADE_VOICES) {
    if (v === joe || !engine.isEnglish(v.engine.voice)) continue;
    const colour = engine.neuralColour(engine.renderParams(v.engine, engine.DEFAULT_VOICE_SETTINGS));
    voices.push({ name: v.name, engine: v.engine, settings: v.settings, targetHz: colour?.pitchHz ?? null });
  }
  for (const clone of CLONE_RECORDINGS) {
    const wav = execFileSync('espeak-ng', ['-v', clone.espeak, '-p', String(clone.pitch), '--stdout', REFERENCE_TEXT]);
    const outcome = await analysis.analyseClone([wav], { maxFileSeconds: 120, minFileSeconds: 1 });
    if (!outcome.ok) throw new Error(`${clone.name}: ${JSON.stringify(outcome.failure)}`);
    voices.push({
      name: clone.name,
      engine: outcome.engineParams,
      settings: {},
      targetHz: outcome.analysis.f0MedianHz,
    });
  }
  return only ? voices.filter((v) => v.name === 'Joe' || only.includes(v.name)) : voices;
}

/**
 * Median F0 and spectral centroid of 16 kHz 16-bit PCM pieces, as the cloning analysis measures them
 * (its LPC formants are not used: above 200 Hz of F0 they lock onto harmonics).
 */
export async function measureVoice(engine, analysis, pcmPieces) {
  const pcm = Buffer.concat(pcmPieces);
  const wav = Buffer.concat([engine.wavHeader(16_000, pcm.length), pcm]);
  const decoded = await analysis.decodeAudio(wav, { maxDurationSec: 3600 });
  const a = analysis.analyseVoice([decoded.samples]);
  return { f0Hz: a.f0MedianHz, centroidHz: a.spectralCentroidHz };
}
