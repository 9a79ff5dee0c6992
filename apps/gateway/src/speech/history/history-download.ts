import { once } from 'node:events';
import express, { Router, type Response } from 'express';
import { SpeechError } from '@platform/errors';
import { historyDownloadBody } from '@platform/contracts';
import { getHistoryItems, readHistoryAudio, type HistoryDoc, type SpeechStore } from '@platform/speech-store';
import { requestCaller } from '../caller';
import { readSpeechInput } from '../speech-input';
import { historyNotFound, historyWithoutAudio } from './history-errors';
import { storedZip } from './stored-zip';

/** The ids of the contract's `historyDownloadBody`, deduplicated in their order. */
function parseDownloadBody(body: unknown): string[] {
  return [...new Set(readSpeechInput(historyDownloadBody, body).history_item_ids)];
}

const EXTENSIONS: [RegExp, string][] = [
  [/^audio\/mpeg/, 'mp3'],
  [/^audio\/(wav|wave|x-wav)/, 'wav'],
  [/^audio\/pcm/, 'pcm'],
  [/^audio\/basic/, 'ulaw'],
  [/alaw/, 'alaw'],
  [/^audio\/ogg/, 'ogg'],
  [/^audio\/opus/, 'opus'],
];

/** The archive's name for an item: its id (unique) with the extension of its audio type. */
function entryName(item: HistoryDoc): string {
  const ext = EXTENSIONS.find(([type]) => type.test(item.contentType))?.[1] ?? 'bin';
  return `${item._id}.${ext}`;
}

async function write(res: Response, bytes: Buffer): Promise<void> {
  if (!res.write(bytes)) await once(res, 'drain');
}

/**
 * `POST /history/download` as the hosted API answers it: one id → that item's audio, several → a
 * ZIP of their audio. Every id must name an item of the account that has audio; otherwise nothing
 * is sent but a 404 naming the first one that does not.
 */
export function historyDownloadRoutes(deps: { store: SpeechStore }): Router {
  const router = Router();
  router.post('/history/download', express.json({ limit: '128kb', type: () => true }), async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const ids = parseDownloadBody(req.body);
    const items = await getHistoryItems(deps.store, caller.sub, ids);
    const missing = ids.find((id) => !items.some((item) => item._id === id));
    if (missing !== undefined) throw historyNotFound(missing);
    const silent = items.find((item) => !item.audioFileId);
    if (silent) throw historyWithoutAudio(silent._id, silent.state);

    if (items.length === 1) {
      const item = items[0]!;
      const bytes = await readHistoryAudio(deps.store, item);
      if (!bytes) throw historyWithoutAudio(item._id, item.state);
      res.status(200).set('Content-Type', item.contentType).set('Content-Length', String(bytes.length)).end(bytes);
      return;
    }
    const zip = storedZip();
    res
      .status(200)
      .set('Content-Type', 'application/zip')
      .set('Content-Disposition', 'attachment; filename="history.zip"');
    for (const item of items) {
      const bytes = await readHistoryAudio(deps.store, item);
      // Deleted between the check and here: the archive cannot be completed honestly.
      if (!bytes) throw new SpeechError(404, 'error', `The history item ${item._id} was deleted during the download.`);
      await write(res, zip.entry(entryName(item), bytes, new Date(item.createdAtMs)));
    }
    res.end(zip.end());
  });
  return router;
}
