export { createSpeechStore, type SpeechStore, type SpeechStoreOptions } from './store';
export {
  createSpeechModels,
  type SpeechModels,
  type VoiceDoc,
  type SampleDoc,
  type SubscriptionDoc,
  type HistoryDoc,
  type VoiceSettings,
} from './documents';
export {
  DEFAULT_PLANS,
  PLAN_NAMES,
  loadPlans,
  planName,
  planPriority,
  PlansConfigError,
  type Plan,
  type PlanName,
  type Plans,
} from './plan-allowances';
export { nextMonthStartUnix } from './period';
export { newId, isPlausibleId } from './ids';
// The worker's voice-analysis thread reads sample files through `@platform/speech-store/sample-files` alone.
export {
  storeSampleFiles,
  stageSampleFiles,
  removeStagedSampleFiles,
  removeSampleFiles,
  sampleFromData,
  type SampleData,
  type SampleInput,
} from './sample-files';
export { premadeFromCatalogue, type PremadeVoice } from './premade';
export {
  ensureSubscription,
  peekSubscription,
  planOf,
  reserveCharacters,
  settleCharacters,
  releaseStaleReservations,
  characterLimitExceeded,
  voiceQuotaExceeded,
  checkVoiceChange,
  type Reservation,
  type ReserveInput,
  type SettleInput,
  type Settlement,
} from './subscriptions';
export { DEFAULT_VOICE_SETTINGS, getVoiceSettings, setVoiceSettings } from './voice-settings';
export {
  findVoice,
  listVoices,
  resolveVoice,
  createClonedVoice,
  editClonedVoice,
  deleteClonedVoice,
  getSampleAudio,
  voiceNotFound,
  voiceChanged,
  premadeImmutable,
  type StoredVoice,
  type AccountVoice,
  type NewClonedVoice,
  type VoiceEdit,
} from './voices';
export {
  recordHistory,
  listHistory,
  getHistoryItem,
  getHistoryAudio,
  deleteHistoryItem,
  UnknownCursorError,
  HISTORY_PAGE_DEFAULT,
  HISTORY_PAGE_MAX,
  type HistoryItemInput,
  type HistoryPage,
  type HistoryPageQuery,
} from './history';
export {
  searchVoices,
  SEARCH_LABELS,
  type SearchLabel,
  type SortDirection,
  type VoiceCategory,
  type VoiceSearchCursor,
  type VoiceSearchPage,
  type VoiceSearchQuery,
  type VoiceSortField,
} from './voice-search';
export { getHistoryItems, readHistoryAudio } from './history-batch';
export { createStoreHooks, type StoreHooks } from './store-hooks';
export {
  changeDictionaryRules,
  createDictionary,
  dictionaryNotFound,
  findDictionary,
  findDictionaryVersion,
  listDictionaries,
  resolvePronunciationRules,
  updateDictionary,
  type DictionaryDoc,
  type DictionaryPageQuery,
  type DictionaryVersionDoc,
} from './pronunciation-dictionaries';
