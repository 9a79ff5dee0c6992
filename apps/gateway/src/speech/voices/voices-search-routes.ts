import { Router } from 'express';
import type { Logger } from '@platform/logger';
import { searchVoices, type SpeechStore } from '@platform/speech-store';
import { requestCaller } from '../caller';
import { speechErrorHandler } from '../speech-errors';
import { encodePageToken, parseSearchQuery } from './search-query';
import { voiceBody } from './voice-body';

/**
 * `GET /v2/voices`: the hosted API's voice search (the official SDKs' `voices.search`), mounted
 * under `/v2`: search, filters, sort and `next_page_token` paging over the premade voices and the
 * account's clones. Answers `{voices, has_more, total_count, next_page_token}`.
 */
export function voicesSearchRoutes(deps: { store: SpeechStore; logger: Logger }): Router {
  const router = Router();
  router.get('/voices', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const query = parseSearchQuery(req, caller.sub);
    const page = await searchVoices(deps.store, query);
    res.json({
      voices: page.voices.map((v) => voiceBody(v)),
      has_more: page.hasMore,
      total_count: page.totalCount,
      next_page_token: page.next
        ? encodePageToken({ sort: query.sort, direction: query.direction, cursor: page.next })
        : null,
    });
  });
  router.use(speechErrorHandler(deps.logger));
  return router;
}
