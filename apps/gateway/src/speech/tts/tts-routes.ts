import { Router, type Request, type Response } from 'express';
import type { Logger } from '@platform/logger';
import type { Model } from '@platform/speech-engine';
import type { SpeechHooks } from '@platform/speech-jobs';
import { requestCaller } from '../caller';
import { sendSpeechError } from '../speech-errors';
import { chunkedSink, wholeFileSink, type HttpSinkOptions } from './http-sinks';
import type { JobRunner } from './job-runner';
import { checkVoiceId, parseTtsRequest } from './parse-request';
import { relayJob, type AudioSink } from './relay-job';
import { pipelineError, prepareJob, type PreparedJob } from './synthesis';
import { timestampsJsonSink, timestampsStreamSink } from './timestamp-sinks';

interface TtsDeps {
  runner: JobRunner;
  hooks: SpeechHooks;
  catalogue: readonly Model[];
  maxTextChars: number;
  /** A client that takes no bytes for this long is given up on (`SPEECH_WRITE_STALL_TIMEOUT_MS`). */
  writeStallTimeoutMs: number;
  logger: Logger;
}

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
 * first sentence), and both `…/with-timestamps` (the audio in JSON with the characters' timing,
 * which the job's worker reports: `timestamps`). Each enqueues one job and relays its frames
 * (`relayJob`); they differ in the sink.
 */
export function ttsRoutes(deps: TtsDeps): Router {
  const synthesize = (kind: PreparedJob['input']['kind'], sinkFor: (o: HttpSinkOptions) => AudioSink, timestamps = false) => async (req: Request, res: Response) => {
    const signal = clientGone(res);
    try {
      const caller = requestCaller(req, 'speech:write');
      const voiceId = checkVoiceId(String(req.params.voice_id));
      const request = parseTtsRequest(req.body, req.query, deps.maxTextChars, deps.catalogue);
      const prepared = await prepareJob(deps, caller, voiceId, request, kind);
      const job = timestamps ? { ...prepared, input: { ...prepared.input, timestamps } } : prepared;
      const sink = sinkFor({ res, job, format: request.format, signal, writeStallTimeoutMs: deps.writeStallTimeoutMs, logger: deps.logger });
      if ((await relayJob(deps.runner, job, signal, sink)) !== 'delivered' && !res.destroyed) res.destroy();
    } catch (err) {
      sendSpeechError(res, pipelineError(err));
    }
  };

  const router = Router();
  router.post('/text-to-speech/:voice_id', synthesize('convert', wholeFileSink));
  router.post('/text-to-speech/:voice_id/stream', synthesize('stream', chunkedSink));
  router.post('/text-to-speech/:voice_id/with-timestamps', synthesize('convert', timestampsJsonSink, true));
  router.post('/text-to-speech/:voice_id/stream/with-timestamps', synthesize('stream', timestampsStreamSink, true));
  return router;
}
