import { Router } from 'express';
import type { StatusOk } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import {
  deleteHistoryItem,
  getHistoryAudio,
  getHistoryItem,
  listHistory,
  UnknownCursorError,
  type SpeechStore,
} from '@platform/speech-store';
import { requestCaller } from '../caller';
import { speechErrorHandler } from '../speech-errors';
import { historyDownloadRoutes } from './history-download';
import { historyNotFound, historyWithoutAudio } from './history-errors';
import { historyItemBody } from './history-item';
import { parsePageQuery } from './page-query';

/** The account's generations: list (keyset paging, newest first), get, audio, download, delete. */
export function historyRoutes(deps: { store: SpeechStore; logger: Logger }): Router {
  const router = Router();
  const { store } = deps;

  router.get('/history', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const { noneMatch, ...query } = parsePageQuery(req);
    if (noneMatch) {
      res.json({ history: [], last_history_item_id: null, has_more: false });
      return;
    }
    try {
      const page = await listHistory(store, { accountId: caller.sub, ...query });
      res.json({ history: page.items.map(historyItemBody), last_history_item_id: page.lastId, has_more: page.hasMore });
    } catch (err) {
      if (err instanceof UnknownCursorError) throw new SpeechError(400, 'bad_request', err.message);
      throw err;
    }
  });

  router.get('/history/:id', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const id = String(req.params.id);
    const item = await getHistoryItem(store, caller.sub, id);
    if (!item) throw historyNotFound(id);
    res.json(historyItemBody(item));
  });

  router.get('/history/:id/audio', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const id = String(req.params.id);
    const found = await getHistoryAudio(store, caller.sub, id);
    if (!found) {
      const item = await getHistoryItem(store, caller.sub, id);
      if (!item) throw historyNotFound(id);
      throw historyWithoutAudio(id, item.state);
    }
    res
      .status(200)
      .set('Content-Type', found.item.contentType)
      .set('Content-Length', String(found.bytes.length))
      .end(found.bytes);
  });

  router.delete('/history/:id', async (req, res) => {
    const caller = requestCaller(req, 'speech:write');
    const id = String(req.params.id);
    if (!(await deleteHistoryItem(store, caller.sub, id))) throw historyNotFound(id);
    res.json({ status: 'ok' } satisfies StatusOk);
  });

  router.use(historyDownloadRoutes({ store }));
  router.use(speechErrorHandler(deps.logger));
  return router;
}
