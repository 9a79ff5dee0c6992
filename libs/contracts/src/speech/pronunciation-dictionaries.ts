import { z } from 'zod/v4';
import { PHONEME_ALPHABETS, spokenPhonemes, PhonemeError } from '@platform/speech-engine';
import { booleanParam, checkedParam, enumParam, pageSizeParam } from './query';

/**
 * Bounds of pronunciation dictionaries (docs/speech.md "Pronunciation dictionaries"): every input is
 * bounded, so a dictionary's rules always fit a synthesis job. How many dictionaries an account keeps
 * is its plan's `pronunciation_dictionary_limit` (libs/speech-store).
 */
export const PRONUNCIATION_LIMITS = {
  /** Rules in one version of a dictionary (and in one request that adds rules). */
  maxRules: 1000,
  /** Code points of `string_to_replace`, `alias` and `phoneme`. */
  maxRuleChars: 100,
  maxNameChars: 100,
  maxDescriptionChars: 1000,
  /** Bytes of a PLS lexicon file. */
  maxFileBytes: 1024 * 1024,
  /** Dictionaries one synthesis request may name, as the hosted API. */
  maxLocators: 3,
  maxPageSize: 100,
  defaultPageSize: 30,
} as const;
const L = PRONUNCIATION_LIMITS;

const chars = (text: string) => [...text].length;
const boundedText = (name: string, max: number, required = true) => {
  const base = z
    .string({ error: `${name} must be a string` })
    .refine((v) => chars(v) <= max, { error: `${name} is longer than ${max} characters` });
  return (required ? base.refine((v) => v.trim().length > 0, { error: `${name} must not be empty` }) : base).meta({
    maxLength: max,
  });
};
const id = z
  .string({ error: 'pronunciation_dictionary_id must be a string' })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'pronunciation_dictionary_id is not a dictionary id' });

const ruleMatch = {
  string_to_replace: boundedText('string_to_replace', L.maxRuleChars),
  case_sensitive: z.boolean({ error: 'case_sensitive must be a boolean' }).nullish().meta({ default: true }),
  word_boundaries: z.boolean({ error: 'word_boundaries must be a boolean' }).nullish().meta({ default: true }),
};

/** `{type:"alias", string_to_replace, alias}`: the matched text is read as `alias`. */
export const aliasRule = z.object({
  type: z.literal('alias'),
  ...ruleMatch,
  alias: boundedText('alias', L.maxRuleChars),
});

/** `{type:"phoneme", string_to_replace, phoneme, alphabet}`: the match is said as the phonemes, checked convertible. */
export const phonemeRule = z
  .object({
    type: z.literal('phoneme'),
    ...ruleMatch,
    phoneme: boundedText('phoneme', L.maxRuleChars),
    alphabet: z.enum(PHONEME_ALPHABETS, { error: 'alphabet must be "ipa" or "cmu-arpabet"' }),
  })
  .check((ctx) => {
    try {
      spokenPhonemes(ctx.value.phoneme, ctx.value.alphabet);
    } catch (err) {
      if (!(err instanceof PhonemeError)) throw err;
      ctx.issues.push({ code: 'custom', input: ctx.value.phoneme, path: ['phoneme'], message: err.message });
    }
  });

export const pronunciationRule = z.discriminatedUnion('type', [aliasRule, phonemeRule], {
  error: 'each rule must be an object with type "alias" or "phoneme"',
});
export type PronunciationRuleInput = z.output<typeof pronunciationRule>;

const rules = z
  .array(pronunciationRule, { error: 'rules must be a list' })
  .min(1, { error: 'rules must not be empty' })
  .max(L.maxRules, { error: `at most ${L.maxRules} rules` });

const workspaceAccess = z
  .enum(['admin', 'editor', 'commenter', 'viewer'], {
    error: 'workspace_access must be admin, editor, commenter or viewer',
  })
  .nullish()
  .meta({ description: 'Accepted; dictionaries belong to the account that made them.' });

/** `POST /v1/pronunciation-dictionaries/add-from-rules`. */
export const addFromRulesBody = z.object(
  {
    name: boundedText('name', L.maxNameChars),
    description: boundedText('description', L.maxDescriptionChars, false).nullish(),
    workspace_access: workspaceAccess,
    rules,
  },
  { error: 'request body must be a JSON object' },
);

/** `POST /v1/pronunciation-dictionaries/add-from-file`: the form's text fields (the file is `file`, a PLS lexicon). */
export const addFromFileFields = z.object({
  name: boundedText('name', L.maxNameChars),
  description: boundedText('description', L.maxDescriptionChars, false).optional(),
  workspace_access: workspaceAccess,
});

/** The whole form as documented: the fields and the lexicon file (read by the gateway's PLS reader). */
export const addFromFileForm = addFromFileFields.extend({
  file: z.string().meta({
    contentMediaType: 'application/pls+xml',
    description: `A PLS lexicon, at most ${L.maxFileBytes} bytes.`,
  }),
});

/** `POST …/{id}/add-rules` and `…/set-rules`. */
export const rulesBody = z.object({ rules }, { error: 'request body must be a JSON object' });

/** `POST …/{id}/remove-rules`: the `string_to_replace` of each rule to remove. */
export const removeRulesBody = z.object(
  {
    rule_strings: z
      .array(boundedText('rule_strings[]', L.maxRuleChars), { error: 'rule_strings must be a list of strings' })
      .min(1, { error: 'rule_strings must not be empty' })
      .max(L.maxRules, { error: `at most ${L.maxRules} rule_strings` }),
  },
  { error: 'request body must be a JSON object' },
);

/** `PATCH …/{id}`: rename, archive or unarchive. */
export const updateDictionaryBody = z.object(
  {
    name: boundedText('name', L.maxNameChars).optional(),
    archived: z.boolean({ error: 'archived must be a boolean' }).optional(),
  },
  { error: 'request body must be a JSON object' },
);

/** `GET /v1/pronunciation-dictionaries`. */
export const dictionaryPageQuery = z.object({
  cursor: checkedParam('cursor', (v) => /^[A-Za-z0-9_-]{1,64}$/.test(v), 'cursor is not a cursor of this list'),
  page_size: pageSizeParam(
    'page_size',
    3,
    L.maxPageSize,
    `page_size must be an integer from 1 to ${L.maxPageSize}`,
  ).meta({ description: `1–${L.maxPageSize}, default ${L.defaultPageSize}.` }),
  sort: enumParam('sort', ['creation_time_unix', 'name'], 'sort must be creation_time_unix or name'),
  sort_direction: enumParam(
    'sort_direction',
    ['ascending', 'descending'],
    'sort_direction must be ascending or descending',
  ),
  include_archived: booleanParam('include_archived'),
});

/** A dictionary id in a path. */
export const dictionaryIdParam = id;

/**
 * `pronunciation_dictionary_locators` of a synthesis request: at most three dictionaries, each at a
 * version (`version_id`) or, without one, its latest version; applied in the order given.
 */
export const pronunciationLocators = z
  .array(
    z.object(
      {
        pronunciation_dictionary_id: id,
        version_id: id.nullish(),
      },
      { error: 'each locator must be an object with pronunciation_dictionary_id' },
    ),
    { error: 'pronunciation_dictionary_locators must be a list' },
  )
  .max(L.maxLocators, { error: `at most ${L.maxLocators} pronunciation_dictionary_locators` })
  .nullish();
export type PronunciationLocators = NonNullable<z.output<typeof pronunciationLocators>>;

const ruleOut = z.union([
  z.object({
    type: z.literal('alias'),
    string_to_replace: z.string(),
    case_sensitive: z.boolean(),
    word_boundaries: z.boolean(),
    alias: z.string(),
  }),
  z.object({
    type: z.literal('phoneme'),
    string_to_replace: z.string(),
    case_sensitive: z.boolean(),
    word_boundaries: z.boolean(),
    phoneme: z.string(),
    alphabet: z.enum(PHONEME_ALPHABETS),
  }),
]);
const permission = z.enum(['admin', 'editor', 'commenter', 'viewer']);

/** What create answers. */
export const addDictionaryResponse = z.object({
  id: z.string(),
  name: z.string(),
  created_by: z.string(),
  creation_time_unix: z.int(),
  version_id: z.string(),
  version_rules_num: z.int(),
  description: z.string().nullable(),
  permission_on_resource: permission,
});

/** A dictionary's metadata (list, update). */
export const dictionaryMetadata = z.object({
  id: z.string(),
  latest_version_id: z.string(),
  latest_version_rules_num: z.int(),
  name: z.string(),
  permission_on_resource: permission,
  created_by: z.string(),
  creation_time_unix: z.int(),
  archived_time_unix: z.int().nullable(),
  description: z.string().nullable(),
});

/** `GET …/{id}`: the metadata and the latest version's rules. */
export const dictionaryWithRules = dictionaryMetadata.extend({ rules: z.array(ruleOut) });

export const dictionaryPage = z.object({
  pronunciation_dictionaries: z.array(dictionaryMetadata),
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
});

/** What a rules change answers: the new version. */
export const rulesChangeResponse = z.object({ id: z.string(), version_id: z.string(), version_rules_num: z.int() });
