import type { Logger } from '@platform/logger';
import { DEFAULT_VOICE_SETTINGS, Resampler, synthesizePiperPcm } from '@platform/speech-engine';
import { ANALYSIS_RATE, analyseVoice, type MeasuredSpeaker } from '@platform/voice-analysis';
import type { NeuralModel } from '../synthesis/neural-model';

/** What every installed speaker says to be measured: pangrams, so every speaker's vowels are heard. */
const REFERENCE_TEXT =
  'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore, and the shells she sells are surely sea shells.';

/**
 * The features of every installed speaker, as the cloning analysis measures a clone's samples:
 * each speaker says the reference sentence (without sampling noise, so the measure is the same on
 * every worker) and is analysed like an upload. Measured once, at boot, and only with more than
 * one speaker installed (with one there is nothing to choose: `nearestSpeaker`). A speaker that
 * cannot be measured is left out, with a warning.
 */
export async function measureSpeakers(
  model: NeuralModel,
  logger: Logger,
  espeakBinary?: string,
): Promise<MeasuredSpeaker[]> {
  if (model.state !== 'loaded') return [];
  const speakers = model.catalogue.speakers().filter((s) => model.voices.has(s.voice.name));
  if (speakers.length < 2) return [];
  const started = performance.now();
  const measured: MeasuredSpeaker[] = [];
  for (const speaker of speakers) {
    const voice = model.voices.get(speaker.voice.name)!;
    try {
      const pcm = await synthesizePiperPcm(
        voice,
        REFERENCE_TEXT,
        DEFAULT_VOICE_SETTINGS,
        espeakBinary,
        true,
        speaker.id,
      );
      const analysis = analyseVoice([analysisSamples(pcm, voice.config.audio.sample_rate)]);
      const { f0MedianHz, spectralCentroidHz, formant1Hz, formant2Hz } = analysis;
      measured.push({
        model: speaker.voice.name,
        id: speaker.id,
        language: speaker.voice.language,
        features: { f0MedianHz, spectralCentroidHz, formant1Hz, formant2Hz },
      });
    } catch (err) {
      logger.warn(
        { err, voice: speaker.voice.name, speaker: speaker.id },
        'speaker not measured; clones will not start from it',
      );
    }
  }
  logger.info(
    { speakers: measured.length, ms: Math.round(performance.now() - started) },
    'installed speakers measured for cloning',
  );
  return measured;
}

/** 16-bit PCM at the model's rate as the analysis takes audio: floats at ANALYSIS_RATE. */
function analysisSamples(pcm: Int16Array, rate: number): Float32Array {
  const resampler = new Resampler(rate, ANALYSIS_RATE);
  const head = resampler.push(pcm);
  const tail = resampler.end();
  const samples = new Float32Array(head.length + tail.length);
  samples.set(Float32Array.from(head, (s) => s / 32768));
  samples.set(
    Float32Array.from(tail, (s) => s / 32768),
    head.length,
  );
  return samples;
}
