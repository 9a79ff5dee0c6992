import { Resampler } from '@platform/speech-engine';
import { ANALYSIS_RATE, analyseVoice, type MeasuredSpeaker } from '@platform/voice-analysis';

/** What a speaker is measured by: the features a clone's samples are compared on (`nearestSpeaker`). */
export type SpeakerFeatures = MeasuredSpeaker['features'];

/** A speaker's reference rendering (16-bit PCM at the model's rate) measured as the cloning analysis measures an upload. */
export function speakerFeatures(pcm: Int16Array, rate: number): SpeakerFeatures {
  const { f0MedianHz, spectralCentroidHz, formant1Hz, formant2Hz } = analyseVoice([analysisSamples(pcm, rate)]);
  return { f0MedianHz, spectralCentroidHz, formant1Hz, formant2Hz };
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
