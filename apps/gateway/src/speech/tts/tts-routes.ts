import { once } from 'node:events';
import { Router, type Request, type Response } from 'express';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import type { Model } from '@platform/speech-engine';
import type { SpeechHooks } from '@platform/speech-jobs';
import { sendSpeechError } from './errors';
import type { JobRunner } from './job-runner';
import { checkVoiceId, parseTtsRequest } from './parse-request';
import { frameError, pipelineError, prepareJob, requireSpeaker } from './synthesis';

interface TtsDeps {
  runner: JobRunner;
  hooks: SpeechHooks;
  catalogue: readonly Model[];
  maxTextChars: number;
  logger: Logger;
}

const identityOf = (req: Request) => (req as Request & { identity?: Identity }).identity;

/** Aborts when the client goes away before the response is complete. */
function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Waits until a slow client has taken the bytes written so far, or has gone (a 'close' that
 * happened before this call would never fire again, so the signal is checked too).
 */
async function drained(res: Response, signal: AbortSignal): Promise<void> {
  if (signal.aborted || res.destroyed) return;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    // Each wait settles quietly when aborted below, so the loser of the race rejects nobody.
    const quiet = (event: string) => once(res, event, { signal: controller.signal }).catch(() => undefined);
    await Promise.race([quiet('drain'), quiet('close')]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/**
 * `POST /text-to-speech/{voice_id}` (whole file) and `…/stream` (chunked, first bytes after the
 * first sentence). Both enqueue one job and relay its frames.
 */
export function ttsRoutes(deps: TtsDeps): Router {
  const router = Router();

  router.post('/text-to-speech/:voice_id', async (req, res) => {
    let settle: ((n: number) => Promise<void>) | undefined;
    try {
      const identity = requireSpeaker(identityOf(req));
      const voiceId = checkVoiceId(String(req.params.voice_id));
      const request = parseTtsRequest(req.body, req.query, deps.maxTextChars, deps.catalogue);
      const job = await prepareJob(deps, identity, voiceId, request, 'convert');
      settle = job.settle;
      const signal = clientGone(res);
      const parts: Buffer[] = [];
      for await (const frame of deps.runner.run(job.jobId, job.input, { priority: job.priority, signal })) {
        const failure = frameError(frame);
        if (failure) throw failure;
        if (frame.type === 'audio') parts.push(frame.data);
      }
      if (signal.aborted) {
        await job.settle(0);
        return;
      }
      const audio = Buffer.concat(parts);
      res.status(200).set({ 'Content-Type': request.format.contentType, 'history-item-id': job.jobId, 'request-id': job.jobId });
      res.end(audio);
      await job.settle(job.characters);
    } catch (err) {
      await settle?.(0);
      sendSpeechError(res, pipelineError(err));
    }
  });

  router.post('/text-to-speech/:voice_id/stream', async (req, res) => {
    let settle: ((n: number) => Promise<void>) | undefined;
    try {
      const identity = requireSpeaker(identityOf(req));
      const voiceId = checkVoiceId(String(req.params.voice_id));
      const request = parseTtsRequest(req.body, req.query, deps.maxTextChars, deps.catalogue);
      const job = await prepareJob(deps, identity, voiceId, request, 'stream');
      settle = job.settle;
      const signal = clientGone(res);
      let completed = false;
      for await (const frame of deps.runner.run(job.jobId, job.input, { priority: job.priority, signal })) {
        const failure = frameError(frame);
        if (failure) throw failure;
        if (frame.type === 'audio' && frame.data.length > 0) {
          if (!res.headersSent) {
            // No Content-Length: Node sends chunked transfer encoding, one chunk per frame.
            res.writeHead(200, { 'Content-Type': request.format.contentType, 'history-item-id': job.jobId, 'request-id': job.jobId });
          }
          if (!res.write(frame.data)) await drained(res, signal);
        }
        if (frame.type === 'end') completed = true;
      }
      if (!completed || signal.aborted) {
        await job.settle(0);
        if (!res.writableEnded) res.destroy();
        return;
      }
      if (!res.headersSent) res.writeHead(200, { 'Content-Type': request.format.contentType, 'history-item-id': job.jobId });
      res.end();
      await job.settle(job.characters);
    } catch (err) {
      await settle?.(0);
      sendSpeechError(res, pipelineError(err));
    }
  });

  return router;
}
