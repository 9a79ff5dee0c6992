import type { Request } from 'express';
import { SpeechError } from '@platform/errors';
import { HISTORY_PAGE_DEFAULT, HISTORY_PAGE_MAX } from '@platform/speech-store';

export interface PageQuery {
  pageSize: number;
  startAfterId?: string;
  voiceId?: string;
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SpeechError(400, 'bad_request', `${name} must be given once`);
  return value;
}

/** `pageSize` (or `page_size`) 1–1000, default 100; `start_after_history_item_id`; `voice_id`. */
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
  if (voiceId !== undefined && (voiceId.length === 0 || voiceId.length > 64)) throw new SpeechError(400, 'bad_request', 'voice_id is not a voice id');
  return { pageSize, ...(startAfterId ? { startAfterId } : {}), ...(voiceId ? { voiceId } : {}) };
}
