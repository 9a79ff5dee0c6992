import {
  addDictionaryResponse,
  addFromFileForm,
  addFromRulesBody,
  addVoiceResponse,
  apiKey,
  apiKeyPage,
  audioWithTimestamps,
  characterAlignment,
  dictionaryMetadata,
  dictionaryPage,
  dictionaryWithRules,
  historyDownloadBody,
  historyItem,
  historyPage,
  jsonSchemaOf,
  model,
  newApiKey,
  newApiKeyBody,
  openAiErrorBody,
  openAiSpeechEvent,
  openAiSpeechRequest,
  removeRulesBody,
  rulesBody,
  rulesChangeResponse,
  updateDictionaryBody,
  outputFormat,
  speechErrorBody,
  statusOk,
  storedVoiceSettings,
  subscription,
  textToSpeechRequest,
  user,
  voice,
  voiceAddForm,
  voiceDetail,
  voiceEditForm,
  voiceFormFiles,
  voiceSearchPage,
  voiceSettings,
} from '@platform/contracts';
import type { z } from 'zod/v4';
import { componentSchemas } from '../../contract-schemas';
import type { JsonObject } from '../json-helpers';
import { MAX_TEXT_CHARS } from './synthesis';

/** What a client sends (`input`: defaults optional) or what the gateway answers (`output`). */
const sent = (schema: z.ZodType) => jsonSchemaOf(schema, 'input') as JsonObject;
const answered = (schema: z.ZodType) => jsonSchemaOf(schema, 'output') as JsonObject;

/** An operation's query parameters: one per field of its contract, described as the contract describes it. */
/**
 * The document's `components.schemas` from the speech contracts (libs/contracts/src/speech), the
 * shapes the gateway validates requests with; a component used inside another becomes a `$ref`.
 * The voice forms are multipart: their text fields are the contracts the gateway checks, their
 * `files` are read by its streaming parser and described by the contract's `voiceFormFiles`.
 */
export const contractSchemas = (): Record<string, JsonObject> =>
  componentSchemas({
    SpeechError: answered(speechErrorBody),
    StatusOk: answered(statusOk),
    OutputFormat: sent(outputFormat),
    VoiceSettings: sent(voiceSettings),
    StoredVoiceSettings: answered(storedVoiceSettings),
    TextToSpeechRequest: sent(textToSpeechRequest(MAX_TEXT_CHARS)),
    CharacterAlignment: answered(characterAlignment),
    AudioWithTimestamps: answered(audioWithTimestamps),
    Model: answered(model),
    Voice: answered(voice),
    VoiceDetail: answered(voiceDetail),
    VoiceAddForm: sent(voiceAddForm.extend({ files: voiceFormFiles })),
    VoiceEditForm: sent(voiceEditForm.extend({ files: voiceFormFiles.optional() })),
    AddVoiceResponse: answered(addVoiceResponse),
    VoiceSearchPage: answered(voiceSearchPage),
    User: answered(user),
    Subscription: answered(subscription),
    HistoryItem: answered(historyItem),
    HistoryPage: answered(historyPage),
    HistoryDownloadRequest: sent(historyDownloadBody),
    ApiKey: answered(apiKey),
    NewApiKey: answered(newApiKey),
    ApiKeyRequest: sent(newApiKeyBody),
    ApiKeyPage: answered(apiKeyPage),
    OpenAiSpeechRequest: sent(openAiSpeechRequest(MAX_TEXT_CHARS)),
    OpenAiSpeechEvent: answered(openAiSpeechEvent),
    OpenAiError: answered(openAiErrorBody),
    PronunciationDictionaryFromRules: sent(addFromRulesBody),
    PronunciationDictionaryFromFile: sent(addFromFileForm),
    PronunciationRules: sent(rulesBody),
    PronunciationRuleStrings: sent(removeRulesBody),
    PronunciationDictionaryUpdate: sent(updateDictionaryBody),
    AddPronunciationDictionaryResponse: answered(addDictionaryResponse),
    PronunciationDictionaryMetadata: answered(dictionaryMetadata),
    PronunciationDictionaryWithRules: answered(dictionaryWithRules),
    PronunciationDictionaryPage: answered(dictionaryPage),
    PronunciationRulesChange: answered(rulesChangeResponse),
  });
