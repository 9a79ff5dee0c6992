// The speech interface's request and response shapes (zod, from 'zod/v4'): its app validates with them and
// libs/api-docs writes its OpenAPI document from them. Small files by subject.
export { HISTORY_STATES, VOICE_CATEGORIES, type ListsEvery } from './code-lists';
export { audioMediaTypes } from './audio-types';
export { booleanParam, checkedParam, enumParam, integerParam, onceParam, pageSizeParam } from './query';
export { storedVoiceSettings, voiceSettings, voiceSettingsEditBody } from './voice-settings';
export {
  languageCodeParam,
  outputFormat,
  outputFormatParam,
  requestOptions,
  textToSpeechRequest,
  type RequestOptionsInput,
  type TextToSpeechRequest,
} from './text-to-speech';
export { audioWithTimestamps, characterAlignment } from './audio';
export { SERVED_MODEL_IDS, model } from './models';
export { addVoiceResponse, voice, voiceDetail, voiceSearchPage } from './voices';
export { SPEECH_ERROR_STATUSES, speechErrorBody, statusOk, type SpeechErrorBody, type StatusOk } from './speech-error';
export {
  PREVIEW_FILE,
  apiKeyIdParam,
  historyItemIdParam,
  previewFileParam,
  sampleIdParam,
  synthesisVoiceIdParam,
  voiceIdParam,
} from './path-params';
export { RESPONSE_SHAPES, responseShapeParam, type ResponseShape } from './response-shape';
export {
  CHUNK_LENGTH_RANGE,
  audioMessage,
  endOfInputMessage,
  finalMessage,
  generationConfig,
  inactivityTimeoutParam,
  initialiseMessage,
  streamInputQuery,
  streamInputMessage,
  textMessage,
  type AudioMessage,
  type FinalMessage,
} from './stream-input';
export {
  MAX_CONTEXTS,
  MAX_CONTEXT_ID_CHARS,
  closeContextMessage,
  closeSocketMessage,
  contextAudioMessage,
  contextFinalMessage,
  contextTextMessage,
  flushContextMessage,
  initialiseContextMessage,
  keepAliveMessage,
  multiStreamInputMessage,
  multiStreamInputQuery,
  type ContextFinalMessage,
} from './multi-stream-input';
export { VOICE_UPLOAD_LIMITS, voiceAddForm, voiceEditForm, voiceFormFiles } from './voice-form';
export {
  FINE_TUNING_STATES,
  VOICE_SEARCH_CATEGORIES,
  VOICE_SEARCH_PAGE_DEFAULT,
  VOICE_SEARCH_PAGE_MAX,
  VOICE_TYPES,
  voiceSearchQuery,
  type VoiceSearchCategory,
  type VoiceSearchParams,
  type VoiceType,
} from './voice-search';
export {
  HISTORY_SOURCES,
  historyDownloadBody,
  historyItem,
  historyPage,
  historyPageQuery,
  type HistoryPageParams,
} from './history';
export { subscription, user } from './account';
export {
  API_KEY_ID,
  API_KEY_NAME_MAX,
  API_KEY_PAGE_DEFAULT,
  API_KEY_PAGE_MAX,
  apiKey,
  apiKeyPage,
  apiKeyPageQuery,
  newApiKey,
  newApiKeyBody,
  type NewApiKeyBody,
} from './api-keys';
export {
  OPENAI_MAX_INPUT_CHARS,
  OPENAI_RESPONSE_FORMATS,
  OPENAI_SPEECH_MODELS,
  OPENAI_SPEED_RANGE,
  OPENAI_VOICES,
  openAiError,
  openAiErrorBody,
  openAiErrorType,
  openAiSpeechEvent,
  openAiSpeechRequest,
  type OpenAiErrorBody,
  type OpenAiResponseFormat,
  type OpenAiSpeechEvent,
  type OpenAiSpeechRequest,
} from './openai-speech';
export {
  PRONUNCIATION_LIMITS,
  addDictionaryResponse,
  addFromFileFields,
  addFromFileForm,
  addFromRulesBody,
  dictionaryIdParam,
  dictionaryMetadata,
  dictionaryPage,
  dictionaryPageQuery,
  dictionaryWithRules,
  pronunciationLocators,
  pronunciationRule,
  removeRulesBody,
  rulesBody,
  rulesChangeResponse,
  updateDictionaryBody,
  type PronunciationLocators,
  type PronunciationRuleInput,
} from './pronunciation-dictionaries';
