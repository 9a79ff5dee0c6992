import { Router, type Request, type Response } from 'express';
import type { Logger } from '@platform/logger';
import type { Model } from '@platform/speech-engine';
import type { SpeechHooks } from '@platform/speech-jobs';
import type { StreamSurface } from '../../metrics/stream-metrics';
import { requestCaller } from '../caller';
import { sendSpeechError } from '../speech-errors';
import { chunkedSink, wholeFileSink, type HttpSinkOptions } from './http-sinks';
import type { JobRunner } from './job-runner';
import { checkVoiceId, parseTtsRequest } from './parse-request';
import { relayJob, type AudioSink } from './relay-job';
import { pipelineError, prepareJob, type PreparedJob } from './synthesis';
import { listenTo, type StreamListening } from './stream-listening';
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
  /** `surface`: a stream played as it arrives, whose listener's silences are measured (`listenTo`). */
  const synthesize =
    (
      kind: PreparedJob['input']['kind'],
      sinkFor: (o: HttpSinkOptions) => AudioSink,
      timestamps = false,
      surface?: StreamSurface,
    ) =>
    async (req: Request, res: Response) => {
      const signal = clientGone(res);
      let listening: StreamListening | undefined;
      try {
        const caller = requestCaller(req, 'speech:write');
        const voiceId = checkVoiceId(String(req.params.voice_id));
        const request = parseTtsRequest(req.body, req.query, deps.maxTextChars, deps.catalogue);
        const prepared = await prepareJob(deps, caller, voiceId, request, kind);
        const job = timestamps ? { ...prepared, input: { ...prepared.input, timestamps } } : prepared;
        const sink = sinkFor({
          res,
          job,
          format: request.format,
          signal,
          writeStallTimeoutMs: deps.writeStallTimeoutMs,
          logger: deps.logger,
        });
        // The timestamped stream's audio goes out in each piece's line: credited a piece at a time.
        listening = surface && listenTo(surface, request.format, { perPiece: timestamps });
        if ((await relayJob(deps.runner, job, signal, sink, listening)) !== 'delivered' && !res.destroyed)
          res.destroy();
      } catch (err) {
        sendSpeechError(res, pipelineError(err));
      } finally {
        listening?.end();
      }
    };

  const router = Router();
  router.post('/text-to-speech/:voice_id', synthesize('convert', wholeFileSink));
  router.post('/text-to-speech/:voice_id/stream', synthesize('stream', chunkedSink, false, 'stream'));
  router.post('/text-to-speech/:voice_id/with-timestamps', synthesize('convert', timestampsJsonSink, true));
  router.post(
    '/text-to-speech/:voice_id/stream/with-timestamps',
    synthesize('stream', timestampsStreamSink, true, 'stream_timestamps'),
  );
  return router;
}
