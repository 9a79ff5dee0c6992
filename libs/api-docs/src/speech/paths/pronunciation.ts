import { dictionaryIdParam, dictionaryPageQuery } from '@platform/contracts';
import { pathParameter, queryParameters } from '../../contract-schemas';
import { speechErrors } from '../errors';
import { binaryResponse, jsonContent, jsonResponse, schemaRef, type JsonObject } from '../json-helpers';
import { anyCredential } from '../security';

const tags = ['Pronunciation dictionaries'];
const read = anyCredential('speech:read');
const write = anyCredential('speech:write');

const id = pathParameter('pronunciation_dictionary_id', dictionaryIdParam);
/** An unknown dictionary or version, or another account's: 404 `error`. */
const missing = { 404: ['error'] } as const;
const json = (name: string, example?: JsonObject): JsonObject => ({
  required: true,
  content: jsonContent(schemaRef(name), example),
});
const newVersion = {
  200: jsonResponse('The new version.', schemaRef('PronunciationRulesChange')),
  ...speechErrors({ ...missing, 409: ['error'] }),
};

const aliasExample = { type: 'alias', string_to_replace: 'UN', alias: 'United Nations' };

export const pronunciationPaths = (): JsonObject => ({
  '/v1/pronunciation-dictionaries/add-from-rules': {
    post: {
      operationId: 'addPronunciationDictionaryFromRules',
      tags,
      summary: 'A new dictionary from alias and phoneme rules',
      security: write,
      requestBody: json('PronunciationDictionaryFromRules', { name: 'Acronyms', rules: [aliasExample] }),
      responses: {
        200: jsonResponse('The dictionary and its first version.', schemaRef('AddPronunciationDictionaryResponse')),
        ...speechErrors({ 429: ['quota_exceeded'] }),
      },
    },
  },
  '/v1/pronunciation-dictionaries/add-from-file': {
    post: {
      operationId: 'addPronunciationDictionaryFromFile',
      tags,
      summary: 'A new dictionary from a PLS lexicon',
      description:
        'multipart/form-data: `name`, `file` (a PLS lexicon, at most 1 MiB), `description`, `workspace_access`.',
      security: write,
      requestBody: {
        required: true,
        content: { 'multipart/form-data': { schema: schemaRef('PronunciationDictionaryFromFile') } },
      },
      responses: {
        200: jsonResponse('The dictionary and its first version.', schemaRef('AddPronunciationDictionaryResponse')),
        ...speechErrors({ 429: ['quota_exceeded'] }),
      },
    },
  },
  '/v1/pronunciation-dictionaries': {
    get: {
      operationId: 'listPronunciationDictionaries',
      tags,
      summary: 'The account’s dictionaries, a page at a time',
      security: read,
      parameters: [...queryParameters(dictionaryPageQuery)],
      responses: { 200: jsonResponse('A page.', schemaRef('PronunciationDictionaryPage')), ...speechErrors() },
    },
  },
  '/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}': {
    parameters: [id],
    get: {
      operationId: 'getPronunciationDictionary',
      tags,
      summary: 'A dictionary with its latest version’s rules',
      security: read,
      responses: {
        200: jsonResponse('The dictionary.', schemaRef('PronunciationDictionaryWithRules')),
        ...speechErrors(missing),
      },
    },
    patch: {
      operationId: 'updatePronunciationDictionary',
      tags,
      summary: 'Rename, archive or unarchive a dictionary',
      security: write,
      requestBody: json('PronunciationDictionaryUpdate', { archived: true }),
      responses: {
        200: jsonResponse('The dictionary.', schemaRef('PronunciationDictionaryMetadata')),
        ...speechErrors(missing),
      },
    },
  },
  '/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/{version_id}/download': {
    parameters: [id, pathParameter('version_id', dictionaryIdParam)],
    get: {
      operationId: 'downloadPronunciationDictionaryVersion',
      tags,
      summary: 'A version’s rules as a PLS lexicon',
      security: read,
      responses: { 200: binaryResponse('The PLS lexicon.', ['application/pls+xml']), ...speechErrors(missing) },
    },
  },
  '/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/add-rules': {
    parameters: [id],
    post: {
      operationId: 'addPronunciationRules',
      tags,
      summary: 'Add rules (a rule for a string already there replaces it): a new version',
      security: write,
      requestBody: json('PronunciationRules', { rules: [aliasExample] }),
      responses: newVersion,
    },
  },
  '/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/set-rules': {
    parameters: [id],
    post: {
      operationId: 'setPronunciationRules',
      tags,
      summary: 'Replace all the rules: a new version',
      security: write,
      requestBody: json('PronunciationRules', { rules: [aliasExample] }),
      responses: newVersion,
    },
  },
  '/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/remove-rules': {
    parameters: [id],
    post: {
      operationId: 'removePronunciationRules',
      tags,
      summary: 'Remove the rules for these strings: a new version',
      security: write,
      requestBody: json('PronunciationRuleStrings', { rule_strings: ['UN'] }),
      responses: newVersion,
    },
  },
});
