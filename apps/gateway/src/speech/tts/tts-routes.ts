import { Router, type Request } from 'express';
import { sendSpeechError } from '../speech-errors';
import { chunkedSink, wholeFileSink, type HttpSinkOptions } from './http-sinks';
import { checkVoiceId, parseTtsRequest } from './parse-request';
import type { AudioSink } from './relay-job';
import { serveSynthesis, type SynthesisEndpoint, type TtsDeps } from './serve-synthesis';
import type { PreparedJob } from './synthesis';
import { timestampsJsonSink, timestampsStreamSink } from './timestamp-sinks';

/**
 * `POST /text-to-speech/{voice_id}` (whole file) and `…/stream` (chunked, first bytes after the
 * first sentence), and both `…/with-timestamps` (the audio in JSON with the characters' timing,
 * which the job's worker reports: `timestamps`). Each enqueues one job and relays its frames
 * (`serveSynthesis`); they differ in the sink.
 */
export function ttsRoutes(deps: TtsDeps): Router {
  const read = (req: Request) => ({
    voiceId: checkVoiceId(String(req.params.voice_id)),
    request: parseTtsRequest(req.body, req.query, deps.maxTextChars, deps.catalogue),
  });
  const synthesize = (
    kind: PreparedJob['input']['kind'],
    sinkFor: (o: HttpSinkOptions) => AudioSink,
    timestamps = false,
    surface?: SynthesisEndpoint['surface'],
  ) =>
    serveSynthesis(deps, {
      kind,
      read,
      sinkFor,
      timestamps,
      ...(surface ? { surface } : {}),
      sendError: sendSpeechError,
    });

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
