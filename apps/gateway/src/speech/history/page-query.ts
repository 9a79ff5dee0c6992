import type { Request } from 'express';
import { SpeechError } from '@platform/errors';
import { HISTORY_PAGE_DEFAULT, HISTORY_PAGE_MAX, type HistoryPageQuery } from '@platform/speech-store';

type PageQuery = Omit<HistoryPageQuery, 'accountId'> & {
  /** `source` names a product whose generations are not made here (speech to speech, flows): nothing matches. */
  noneMatch?: true;
};

/** The hosted API's `source` values; every generation here is text to speech. */
const SOURCES = ['TTS', 'STS', 'Flows'];

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SpeechError(400, 'bad_request', `${name} must be given once`);
  return value;
}

function unixSeconds(req: Request, name: string): number | undefined {
  const value = single(req.query[name], name);
  if (value === undefined) return undefined;
  if (!/^\d{1,12}$/.test(value)) throw new SpeechError(400, 'bad_request', `${name} must be a Unix time in seconds`);
  return Number(value) * 1000;
}

/**
 * The hosted API's history list parameters: `pageSize` (or `page_size`) 1–1000, default 100;
 * `start_after_history_item_id`; `voice_id`; `model_id`; `date_after_unix` (inclusive) and
 * `date_before_unix` (exclusive); `sort_direction` `desc` (default) or `asc`; `search` (text or
 * voice name); `source` (`TTS`, `STS`, `Flows`).
 */
export function parsePageQuery(req: Request): PageQuery {
  const raw = single(req.query.pageSize, 'pageSize') ?? single(req.query.page_size, 'page_size');
  let pageSize = HISTORY_PAGE_DEFAULT;
  if (raw !== undefined) {
    if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > HISTORY_PAGE_MAX) {
      throw new SpeechError(400, 'bad_request', `pageSize must be an integer from 1 to ${HISTORY_PAGE_MAX}`);
    }
    pageSize = Number(raw);
  }
  const startAfterId = single(req.query.start_after_history_item_id, 'start_after_history_item_id');
  const voiceId = single(req.query.voice_id, 'voice_id');
  if (startAfterId !== undefined && (startAfterId.length === 0 || startAfterId.length > 64)) {
    throw new SpeechError(400, 'bad_request', 'start_after_history_item_id is not a history item id');
  }
  if (voiceId !== undefined && (voiceId.length === 0 || voiceId.length > 64))
    throw new SpeechError(400, 'bad_request', 'voice_id is not a voice id');
  const modelId = single(req.query.model_id, 'model_id');
  if (modelId !== undefined && (modelId.length === 0 || modelId.length > 64))
    throw new SpeechError(400, 'bad_request', 'model_id is not a model id');
  const direction = single(req.query.sort_direction, 'sort_direction');
  if (direction !== undefined && direction !== 'asc' && direction !== 'desc')
    throw new SpeechError(400, 'bad_request', 'sort_direction must be asc or desc');
  const search = single(req.query.search, 'search');
  if (search !== undefined && search.length > 200)
    throw new SpeechError(400, 'bad_request', 'search must be at most 200 characters');
  const source = single(req.query.source, 'source');
  if (source !== undefined && !SOURCES.includes(source))
    throw new SpeechError(400, 'bad_request', `source must be one of ${SOURCES.join(', ')}`);
  const dateAfterMs = unixSeconds(req, 'date_after_unix');
  const dateBeforeMs = unixSeconds(req, 'date_before_unix');
  return {
    pageSize,
    ...(startAfterId ? { startAfterId } : {}),
    ...(voiceId ? { voiceId } : {}),
    ...(modelId ? { modelId } : {}),
    ...(direction ? { direction } : {}),
    ...(search ? { search } : {}),
    ...(dateAfterMs !== undefined ? { dateAfterMs } : {}),
    ...(dateBeforeMs !== undefined ? { dateBeforeMs } : {}),
    ...(source !== undefined && source !== 'TTS' ? { noneMatch: true as const } : {}),
  };
}
