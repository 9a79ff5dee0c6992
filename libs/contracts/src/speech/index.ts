// The speech interface's request and response shapes (zod, from 'zod/v4'): its app validates with them and
// libs/api-docs writes its OpenAPI document from them.
export { booleanParam, checkedParam, enumParam, integerParam, onceParam, pageSizeParam } from './query';
export { voiceSettings, voiceSettingsEditBody } from './voice-settings';
export {
  outputFormatParam,
  languageCodeParam,
  requestOptions,
  textToSpeechRequest,
  type RequestOptionsInput,
  type TextToSpeechRequest,
} from './text-to-speech';
export { HISTORY_SOURCES, historyPageQuery, historyDownloadBody, type HistoryPageParams } from './history';
export {
  API_KEY_ID,
  API_KEY_NAME_MAX,
  API_KEY_PAGE_DEFAULT,
  API_KEY_PAGE_MAX,
  apiKeyPageQuery,
  newApiKeyBody,
  type NewApiKeyBody,
} from './api-keys';
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
