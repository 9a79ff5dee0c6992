import { z } from 'zod/v4';
import { booleanParam, checkedParam, enumParam, integerParam, onceParam } from './query';

export const VOICE_SEARCH_PAGE_DEFAULT = 10;
export const VOICE_SEARCH_PAGE_MAX = 100;

/** The hosted API's `voice_type` values (the gateway maps each to the voice categories it matches). */
export const VOICE_TYPES = [
  'personal',
  'community',
  'default',
  'workspace',
  'non-default',
  'non-community',
  'saved',
] as const;
export type VoiceType = (typeof VOICE_TYPES)[number];

/** The hosted API's voice `category` values; `generated`, `professional` and `high_quality` are not made here. */
export const VOICE_SEARCH_CATEGORIES = ['premade', 'cloned', 'generated', 'professional', 'high_quality'] as const;
export type VoiceSearchCategory = (typeof VOICE_SEARCH_CATEGORIES)[number];

/** The hosted API's professional fine-tuning states (none is reached here). */
export const FINE_TUNING_STATES = [
  'draft',
  'not_verified',
  'not_started',
  'queued',
  'fine_tuning',
  'fine_tuned',
  'failed',
  'delayed',
] as const;

const oneOf = <const Values extends readonly [string, ...string[]]>(name: string, values: Values) =>
  enumParam(name, values, `${name} must be one of ${values.join(', ')}`);

/** A parameter that may be repeated (`language=en&language=de`): its values, each 1–200 characters. */
const manyParam = (name: string) => {
  const message = `${name}: at most ${VOICE_SEARCH_PAGE_MAX} values of 1 to 200 characters`;
  return z
    .preprocess(
      (value) => (value === undefined ? value : (Array.isArray(value) ? value : [value]).map(String)),
      z
        .array(z.string().min(1, { error: message }).max(200, { error: message }), { error: message })
        .max(VOICE_SEARCH_PAGE_MAX, { error: message }),
    )
    .optional();
};

/**
 * `GET /v2/voices` (the official SDKs' `voices.search`). Filters that concern only voice-library
 * sharing (`min_notice_period_days`, `include_custom_rates`, `include_live_moderated`) are checked and
 * have nothing to filter here; `include_total_count` is accepted and `total_count` always answered.
 */
export const voiceSearchQuery = z.object({
  page_size: integerParam(
    'page_size',
    6,
    1,
    VOICE_SEARCH_PAGE_MAX,
    `page_size must be an integer from 1 to ${VOICE_SEARCH_PAGE_MAX}`,
  ).meta({
    default: VOICE_SEARCH_PAGE_DEFAULT,
    description: `1–${VOICE_SEARCH_PAGE_MAX}, default ${VOICE_SEARCH_PAGE_DEFAULT}.`,
  }),
  sort: oneOf('sort', ['created_at_unix', 'name']).meta({
    default: 'created_at_unix',
    description: 'Sort key; premade voices have no creation time and sort as the oldest.',
  }),
  sort_direction: oneOf('sort_direction', ['asc', 'desc']).meta({
    description: 'Default `desc` for `created_at_unix`, `asc` for `name`.',
  }),
  search: checkedParam('search', (v) => v.length <= 200, 'search must be at most 200 characters').meta({
    maxLength: 200,
    description: 'Case-insensitive substring of the name, description, a label value or the category.',
  }),
  voice_type: oneOf('voice_type', VOICE_TYPES).meta({
    description:
      '`personal`, `non-default`, `non-community`, `saved`: the account’s clones; `default`: premade; `community`, `workspace`: none.',
  }),
  category: oneOf('category', VOICE_SEARCH_CATEGORIES).meta({
    description: '`premade` or `cloned`; the others match nothing here.',
  }),
  fine_tuning_state: oneOf('fine_tuning_state', FINE_TUNING_STATES).meta({
    description: 'Matches nothing: no professional clones here.',
  }),
  collection_id: onceParam('collection_id').meta({ description: 'Matches nothing: no collections here.' }),
  high_quality: booleanParam('high_quality').meta({ description: '`true` matches nothing.' }),
  min_notice_period_days: integerParam(
    'min_notice_period_days',
    6,
    0,
    100_000,
    'min_notice_period_days must be an integer from 0 to 100000',
  ).meta({ description: 'Checked, no effect.' }),
  include_custom_rates: booleanParam('include_custom_rates').meta({ description: 'Checked, no effect.' }),
  include_live_moderated: booleanParam('include_live_moderated').meta({ description: 'Checked, no effect.' }),
  include_total_count: booleanParam('include_total_count').meta({
    description: 'Checked; `total_count` is always answered.',
  }),
  gender: onceParam('gender').meta({ description: 'The voice’s `gender` label (case-insensitive).' }),
  age: onceParam('age').meta({ description: 'The voice’s `age` label.' }),
  accent: onceParam('accent').meta({ description: 'The voice’s `accent` label.' }),
  language: manyParam('language').meta({ description: 'One of these `language` labels (repeatable).' }),
  use_cases: manyParam('use_cases').meta({ description: 'One of these `use_case` labels (repeatable).' }),
  voice_ids: manyParam('voice_ids').meta({ description: 'Only these voices (repeatable, at most 100).' }),
  next_page_token: onceParam('next_page_token').meta({
    maxLength: 1024,
    description: 'The previous page’s `next_page_token` (same `sort` and `sort_direction`).',
  }),
});
export type VoiceSearchParams = z.output<typeof voiceSearchQuery>;
