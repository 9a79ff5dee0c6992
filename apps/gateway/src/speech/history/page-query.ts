import type { Request } from 'express';
import { historyPageQuery } from '@platform/contracts';
import { HISTORY_PAGE_DEFAULT, type HistoryPageQuery } from '@platform/speech-store';
import { readSpeechInput } from '../speech-input';

type PageQuery = Omit<HistoryPageQuery, 'accountId'> & {
  /** `source` names a product whose generations are not made here (speech to speech, flows): nothing matches. */
  noneMatch?: true;
};

/** The history list parameters (the contract's `historyPageQuery`) as the speech store's page query. */
export function parsePageQuery(req: Request): PageQuery {
  const q = readSpeechInput(historyPageQuery, req.query);
  const rawSize = q.pageSize ?? q.page_size;
  const { start_after_history_item_id: startAfterId, voice_id: voiceId, model_id: modelId } = q;
  const { sort_direction: direction, search, source } = q;
  return {
    pageSize: rawSize !== undefined ? Number(rawSize) : HISTORY_PAGE_DEFAULT,
    ...(startAfterId ? { startAfterId } : {}),
    ...(voiceId ? { voiceId } : {}),
    ...(modelId ? { modelId } : {}),
    ...(direction ? { direction } : {}),
    ...(search ? { search } : {}),
    ...(q.date_after_unix !== undefined ? { dateAfterMs: Number(q.date_after_unix) * 1000 } : {}),
    ...(q.date_before_unix !== undefined ? { dateBeforeMs: Number(q.date_before_unix) * 1000 } : {}),
    ...(source !== undefined && source !== 'TTS' ? { noneMatch: true as const } : {}),
  };
}
