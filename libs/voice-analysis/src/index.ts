export * from './engine-params';
export { sniffContainer, MEDIA_TYPES, type AudioContainer } from './sniff';
export {
  decodeAudio,
  DecodeError,
  ANALYSIS_RATE,
  type DecodedAudio,
  type DecodeFailure,
  type DecodeOptions,
} from './decode';
export { analyseVoice, AnalysisError, MIN_VOICED_SEC, type VoiceAnalysis } from './analyse';
export { median, quantile, semitones } from './stats';
export { deriveParams, pitchFor, type Derivation } from './derive';
export { analyseClone, type CloneFailure, type CloneLimits, type CloneOutcome } from './clone-analysis';
export { nearestSpeaker, speakerDistance, type MeasuredSpeaker, type SpeakerFeatures } from './nearest-speaker';
