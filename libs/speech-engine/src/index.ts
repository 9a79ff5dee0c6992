export { LANGUAGES, resolveLanguage, languageFamily, type Language } from './languages';
export {
  MODELS,
  HOSTED_MODEL_IDS,
  DEFAULT_MODEL_ID,
  NEURAL_MODEL_ID,
  modelCatalogue,
  resolveModel,
  bestModel,
  followsLanguage,
  modelForLanguage,
  isEnglish,
  modelSpeaks,
  hostedModel,
  type Model,
} from './model-catalogue';
export {
  loadVoiceCatalogue,
  VoiceCatalogueError,
  type VoiceCatalogue,
  type InstalledSpeaker,
} from './catalogue/voice-catalogue';
export { CATALOGUE_FILE, catalogueFileSchema, type CatalogueFile } from './catalogue/catalogue-file';
export { scanInstalledVoices, type InstalledPiperVoice, type SkippedVoice } from './catalogue/installed-voices';
export { piperConfigSchema, piperLanguage, type PiperConfig } from './catalogue/piper-config';
export {
  PIPER_VOICE_FILE,
  piperModelAvailable,
  loadPiperVoice,
  synthesizePiperPcm,
  phonemeIds,
  piperScales,
  type PiperVoice,
  type PiperLoadOptions,
} from './piper';
export { NEURAL_PRECISIONS, isPrecisionVariant, modelAtPrecision, type NeuralPrecision } from './piper-precision';
export type { EngineVoiceParams } from './voice-params';
export {
  VARIANTS,
  PITCH_POINTS,
  ENGINE_LOUDNESS_DBFS_AT_100,
  SYLLABLES_PER_SEC,
  type VariantCalibration,
} from './espeak-calibration';
export { NEURAL_SPEAKER_F0_HZ, espeakPitchHz, neuralColour, applyVoiceColour, type VoiceColour } from './voice-colour';
export { yinTrack, decimate2, type PitchOptions } from './pitch';
export { lpc } from './lpc';
export { PREMADE_VOICES, findPremadeVoice, type PremadeVoice } from './premade-voices';
export {
  DEFAULT_VOICE_SETTINGS,
  SPEED_RANGE,
  VoiceSettingsError,
  parseVoiceSettings,
  renderParams,
  type VoiceSettings,
  type RenderParams,
  type RenderOptions,
} from './settings';
export { ENGINE_SAMPLE_RATE, synthesizePcm, espeakInvocation, pcmFromEspeakWav, type EspeakOptions } from './espeak';
export {
  OUTPUT_FORMATS,
  OUTPUT_FORMAT_ALIASES,
  DEFAULT_OUTPUT_FORMAT,
  resolveOutputFormat,
  type OutputFormat,
} from './formats';
export { Resampler } from './resample';
export { encodeUlaw, decodeUlaw } from './ulaw';
export { encodeAlaw, decodeAlaw } from './alaw';
export { WAV_HEADER_BYTES, UNKNOWN_WAV_SIZE, wavHeader } from './wav';
export {
  CODECS,
  codecOf,
  completeAudioFile,
  streamHeaderBytes,
  audioBytesPerSecond,
  continueEncoding,
  type CodecDescriptor,
} from './codecs';
export { restampOggSerial } from './codecs/ogg-serial';
export { normalizeLoudness, fadeEdges } from './loudness';
export {
  splitSentences,
  planPieces,
  shortenFirstPiece,
  takeSentences,
  MAX_PIECE_CHARS,
  FIRST_PIECE_CHARS,
  PIECE_GROWTH,
} from './sentences';
export { createEncoder, type AudioEncoder, type EncoderOptions } from './encoder';
export { synthesizeToStream, type SynthesisRequest, type SynthesisProgress, type PieceDone } from './synthesize';
export {
  createTextAligner,
  pieceCharacterSpans,
  appendAlignment,
  emptyAlignment,
  type CharacterAlignment,
  type WordTiming,
} from './alignment';
export { synthesizeTimedPcm, wordsFromEvents, type TimedPcm, type EspeakTimingOptions } from './espeak-timing';
export { approximateWordTimings } from './neural-timing';
export {
  PHONEME_ALPHABETS,
  type PhonemeAlphabet,
  type PronunciationRule,
  type AliasRule,
  type PhonemeRule,
} from './pronunciation/rules';
export { PhonemeError, arpabetToIpa, ipaToEspeak, spokenPhonemes, type SpokenPhonemes } from './pronunciation/phonemes';
export {
  compilePronunciation,
  pronouncePiece,
  espeakInput,
  wordsInPiece,
  type Pronunciation,
  type SpokenSegment,
} from './pronunciation/apply';
