import { z } from 'zod/v4';
import { HISTORY_PAGE_DEFAULT, HISTORY_PAGE_MAX } from '@platform/speech-store';
import { audioMediaTypes } from './audio-types';
import { HISTORY_STATES } from './code-lists';
import { checkedParam, enumParam, pageSizeParam } from './query';

/** The hosted API's `source` values; every generation here is text to speech (`TTS`). */
export const HISTORY_SOURCES = ['TTS', 'STS', 'Flows'] as const;

const id = (value: string) => value.length > 0 && value.length <= 64;
const unixSeconds = (name: string) =>
  checkedParam(name, (v) => /^\d{1,12}$/.test(v), `${name} must be a Unix time in seconds`).meta({
    type: 'integer',
    minimum: 0,
    maximum: 999_999_999_999,
  });
/** How an id parameter is documented: what `id` accepts. */
const ID = { minLength: 1, maxLength: 64 };
const pageSize = (name: string) =>
  pageSizeParam(name, 6, HISTORY_PAGE_MAX, `pageSize must be an integer from 1 to ${HISTORY_PAGE_MAX}`);

/**
 * `GET /v1/history`: `pageSize` (or `page_size`) 1–1000; `start_after_history_item_id`; `voice_id`;
 * `model_id`; `date_after_unix` (inclusive) and `date_before_unix` (exclusive); `sort_direction`;
 * `search` (text or voice name); `source`.
 */
export const historyPageQuery = z.object({
  pageSize: pageSize('pageSize').meta({
    default: HISTORY_PAGE_DEFAULT,
    description: `1–${HISTORY_PAGE_MAX}, default ${HISTORY_PAGE_DEFAULT} (also \`page_size\`).`,
  }),
  page_size: pageSize('page_size').meta({ description: 'As `pageSize`.' }),
  start_after_history_item_id: checkedParam(
    'start_after_history_item_id',
    id,
    'start_after_history_item_id is not a history item id',
  ).meta({ ...ID, description: 'The previous page’s `last_history_item_id`; an unknown id is 400.' }),
  voice_id: checkedParam('voice_id', id, 'voice_id is not a voice id').meta({
    ...ID,
    description: 'Only this voice’s generations.',
  }),
  model_id: checkedParam('model_id', id, 'model_id is not a model id').meta({
    ...ID,
    description: 'Only this model’s generations.',
  }),
  sort_direction: enumParam('sort_direction', ['asc', 'desc'], 'sort_direction must be asc or desc').meta({
    description: '`desc` (default) or `asc`.',
  }),
  search: checkedParam('search', (v) => v.length <= 200, 'search must be at most 200 characters').meta({
    maxLength: 200,
    description: 'Case-insensitive substring of the text or the voice’s name.',
  }),
  source: enumParam('source', HISTORY_SOURCES, `source must be one of ${HISTORY_SOURCES.join(', ')}`).meta({
    description: '`TTS` (every generation here); `STS`, `Flows`: an empty page.',
  }),
  date_after_unix: unixSeconds('date_after_unix').meta({ description: 'Inclusive, Unix seconds.' }),
  date_before_unix: unixSeconds('date_before_unix').meta({ description: 'Exclusive, Unix seconds.' }),
});
export type HistoryPageParams = z.output<typeof historyPageQuery>;

const IDS_MESSAGE = 'history_item_ids must be a non-empty array of history item ids';

/** `POST /v1/history/download`: `{history_item_ids, output_format?: 'default'}`. */
export const historyDownloadBody = z.object(
  {
    history_item_ids: z
      .array(z.string({ error: IDS_MESSAGE }).min(1, { error: IDS_MESSAGE }).max(64, { error: IDS_MESSAGE }), {
        error: IDS_MESSAGE,
      })
      .min(1, { error: IDS_MESSAGE })
      .max(HISTORY_PAGE_MAX, { error: `history_item_ids may name at most ${HISTORY_PAGE_MAX} items` })
      .meta({ description: 'Repeats count once.' }),
    // The hosted API can transcode to WAV; the audio is served here as it was generated.
    output_format: z
      .literal('default', { error: "output_format: only 'default' (the audio as generated) is served" })
      .nullish()
      .meta({ description: 'Only the audio as generated is served.' }),
  },
  { error: 'the body must be a JSON object with history_item_ids' },
);

const count = z.int().min(0);

/** A generation as `GET /v1/history` lists it. */
export const historyItem = z
  .looseObject({
    history_item_id: z
      .string()
      .meta({ description: 'The generation’s job id (the `history-item-id` header of its answer).' }),
    voice_id: z.string(),
    voice_name: z.string(),
    model_id: z.string().nullable().meta({ description: '`null` for a generation recorded without its model.' }),
    text: z.string(),
    date_unix: z.int(),
    character_count_from_request: count,
    character_count_change_from: count,
    character_count_change_to: count.meta({
      description: 'The characters charged: the request’s when `complete`, else 0.',
    }),
    content_type: z.string().meta({
      description: `The audio's media type (${audioMediaTypes().join(', ')}, with parameters for PCM).`,
    }),
    state: z.enum(HISTORY_STATES),
    settings: z.looseObject({ stability: z.number(), similarity_boost: z.number() }),
  })
  .meta({
    example: {
      history_item_id: '4kRr0cQ9Xw2mZp7LbN1v',
      voice_id: '21m00Tcm4TlvDq8ikWAM',
      voice_name: 'Rachel',
      model_id: 'espeak_ng_v1',
      text: 'Hello! This is a test.',
      date_unix: 1767225600,
      character_count_from_request: 22,
      character_count_change_from: 0,
      character_count_change_to: 22,
      content_type: 'audio/mpeg',
      state: 'complete',
      settings: { stability: 0.5, similarity_boost: 0.75 },
    },
  });

/** `GET /v1/history`. */
export const historyPage = z.looseObject({
  history: z.array(historyItem),
  last_history_item_id: z
    .string()
    .nullable()
    .meta({ description: '`null` on an empty page; pass it as `start_after_history_item_id` for the next.' }),
  has_more: z.boolean(),
});
