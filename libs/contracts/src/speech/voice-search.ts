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
  ),
  sort: oneOf('sort', ['created_at_unix', 'name']),
  sort_direction: oneOf('sort_direction', ['asc', 'desc']),
  search: checkedParam('search', (v) => v.length <= 200, 'search must be at most 200 characters'),
  voice_type: oneOf('voice_type', VOICE_TYPES),
  category: oneOf('category', VOICE_SEARCH_CATEGORIES),
  fine_tuning_state: oneOf('fine_tuning_state', FINE_TUNING_STATES),
  collection_id: onceParam('collection_id'),
  high_quality: booleanParam('high_quality'),
  min_notice_period_days: integerParam(
    'min_notice_period_days',
    6,
    0,
    100_000,
    'min_notice_period_days must be an integer from 0 to 100000',
  ),
  include_custom_rates: booleanParam('include_custom_rates'),
  include_live_moderated: booleanParam('include_live_moderated'),
  include_total_count: booleanParam('include_total_count'),
  gender: onceParam('gender'),
  age: onceParam('age'),
  accent: onceParam('accent'),
  language: manyParam('language'),
  use_cases: manyParam('use_cases'),
  voice_ids: manyParam('voice_ids'),
  next_page_token: onceParam('next_page_token'),
});
export type VoiceSearchParams = z.output<typeof voiceSearchQuery>;
