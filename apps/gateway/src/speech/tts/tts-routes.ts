import { Router, type Request, type Response } from 'express';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import type { Model } from '@platform/speech-engine';
import type { SpeechHooks } from '@platform/speech-jobs';
import { drained, finished, sendBody, type DrainOutcome } from './backpressure';
import { sendSpeechError } from './errors';
import type { JobRunner } from './job-runner';
import { checkVoiceId, parseTtsRequest } from './parse-request';
import { frameError, pipelineError, prepareJob, requireSpeaker, type PreparedJob } from './synthesis';

interface TtsDeps {
  runner: JobRunner;
  hooks: SpeechHooks;
  catalogue: readonly Model[];
  maxTextChars: number;
  /** A client that takes no bytes for this long is given up on (`SPEECH_WRITE_STALL_TIMEOUT_MS`). */
  writeStallTimeoutMs: number;
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
 * `POST /text-to-speech/{voice_id}` (whole file) and `…/stream` (chunked, first bytes after the
 * first sentence). Both enqueue one job and relay its frames.
 */
export function ttsRoutes(deps: TtsDeps): Router {
  const router = Router();

  router.post('/text-to-speech/:voice_id', async (req, res) => {
    let job: PreparedJob | undefined;
    const signal = clientGone(res);
    try {
      const identity = requireSpeaker(identityOf(req));
      const voiceId = checkVoiceId(String(req.params.voice_id));
      const request = parseTtsRequest(req.body, req.query, deps.maxTextChars, deps.catalogue);
      job = await prepareJob(deps, identity, voiceId, request, 'convert');
      const parts: Buffer[] = [];
      for await (const frame of deps.runner.run(job.jobId, job.input, { priority: job.priority, signal, createdAt: job.createdAt })) {
        const failure = frameError(frame);
        if (failure) throw failure;
        if (frame.type === 'audio') parts.push(frame.data);
      }
      if (signal.aborted) {
        await job.giveUp('cancelled');
        return;
      }
      const audio = Buffer.concat(parts);
      res.status(200).set({
        'Content-Type': request.format.contentType,
        'Content-Length': String(audio.length),
        'history-item-id': job.jobId,
        'request-id': job.jobId,
      });
      // Charged once the client has been handed every byte: a client that stops reading (or
      // leaves) mid-file did not get the audio, although all of it was generated.
      const outcome = await sendBody(res, audio, signal, deps.writeStallTimeoutMs);
      if (outcome !== 'drained') {
        notDelivered(res, job.jobId, outcome);
        await job.giveUp('cancelled');
        return;
      }
      await job.settle(job.characters);
    } catch (err) {
      // Recorded before the client hears of it: the failed item is there when the error arrives.
      await job?.giveUp(signal.aborted ? 'cancelled' : 'failed');
      sendSpeechError(res, pipelineError(err));
    }
  });

  router.post('/text-to-speech/:voice_id/stream', async (req, res) => {
    let job: PreparedJob | undefined;
    const signal = clientGone(res);
    try {
      const identity = requireSpeaker(identityOf(req));
      const voiceId = checkVoiceId(String(req.params.voice_id));
      const request = parseTtsRequest(req.body, req.query, deps.maxTextChars, deps.catalogue);
      job = await prepareJob(deps, identity, voiceId, request, 'stream');
      let completed = false;
      let stalled = false;
      for await (const frame of deps.runner.run(job.jobId, job.input, { priority: job.priority, signal, createdAt: job.createdAt })) {
        const failure = frameError(frame);
        if (failure) throw failure;
        if (frame.type === 'audio' && frame.data.length > 0) {
          if (!res.headersSent) {
            // No Content-Length: Node sends chunked transfer encoding, one chunk per frame.
            res.writeHead(200, { 'Content-Type': request.format.contentType, 'history-item-id': job.jobId, 'request-id': job.jobId });
          }
          if (!res.write(frame.data) && (await drained(res, signal, deps.writeStallTimeoutMs)) === 'stalled') {
            // Leaving the loop cancels the job, as a disconnect does.
            deps.logger.info({ jobId: job.jobId, stallMs: deps.writeStallTimeoutMs }, 'stream client stopped reading; cancelling its job');
            stalled = true;
            break;
          }
        }
        if (frame.type === 'end') completed = true;
      }
      if (!completed || signal.aborted || stalled) {
        const state = signal.aborted || stalled ? 'cancelled' : 'failed';
        if (!res.writableEnded) res.destroy();
        await job.giveUp(state);
        return;
      }
      if (!res.headersSent) res.writeHead(200, { 'Content-Type': request.format.contentType, 'history-item-id': job.jobId });
      res.end();
      const outcome = await finished(res, signal, deps.writeStallTimeoutMs);
      if (outcome !== 'drained') {
        notDelivered(res, job.jobId, outcome);
        await job.giveUp('cancelled');
        return;
      }
      await job.settle(job.characters);
    } catch (err) {
      await job?.giveUp(signal.aborted ? 'cancelled' : 'failed');
      sendSpeechError(res, pipelineError(err));
    }
  });

  /** The audio was generated but its client did not take all of it: the response is cut off. */
  function notDelivered(res: Response, jobId: string, outcome: DrainOutcome): void {
    if (outcome === 'stalled') deps.logger.info({ jobId, stallMs: deps.writeStallTimeoutMs }, 'client stopped reading; giving up on its response');
    if (!res.destroyed) res.destroy();
  }

  return router;
}
