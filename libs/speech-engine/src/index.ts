export { LANGUAGES, resolveLanguage, type Language } from './languages';
export { MODELS, MODEL_ALIASES, DEFAULT_MODEL_ID, NEURAL_MODEL_ID, modelCatalogue, resolveModel, type Model } from './models';
export { PIPER_VOICE_FILE, piperModelAvailable, loadPiperVoice, synthesizePiperPcm, phonemeIds, piperScales, type PiperVoice } from './piper';
export { PREMADE_VOICES, findPremadeVoice, type PremadeVoice, type EngineVoiceParams } from './voices';
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
export { OUTPUT_FORMATS, DEFAULT_OUTPUT_FORMAT, resolveOutputFormat, type OutputFormat } from './formats';
export { Resampler } from './resample';
export { encodeUlaw, decodeUlaw } from './ulaw';
export { normalizeLoudness, fadeEdges } from './loudness';
export { splitSentences, planPieces, takeSentences, MAX_PIECE_CHARS } from './sentences';
export { createEncoder, type AudioEncoder, type EncoderOptions } from './encoder';
export { synthesizeToStream, type SynthesisRequest, type SynthesisProgress } from './synthesize';
