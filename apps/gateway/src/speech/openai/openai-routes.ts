import express, { Router } from 'express';
import { chunkedSink, framedChunkSink } from '../tts/http-sinks';
import { serveSynthesis, type TtsDeps } from '../tts/serve-synthesis';
import { speechErrorHandler } from '../speech-errors';
import { sendOpenAiError } from './openai-errors';
import { sseFraming } from './sse-framing';
import { readOpenAiSpeech } from './speech-request';

/**
 * OpenAI's speech API, mounted at `/v1/audio` (docs/speech.md, "OpenAI speech API"):
 * `POST /speech` runs the same path as `POST /v1/text-to-speech/{voice_id}/stream` (plans,
 * quotas, concurrency, history, charging), its audio chunked as it is made, or as Server-Sent
 * Events; every error in OpenAI's shape.
 */
export function openAiRoutes(deps: TtsDeps): Router {
  const router = Router();
  // Bounded body: 4 096 characters are < 20 kB even in 4-byte UTF-8 plus JSON overhead.
  router.use(express.json({ limit: '64kb', type: () => true }));
  router.post(
    '/speech',
    serveSynthesis(deps, {
      kind: 'stream',
      surface: 'stream',
      read: (req) => readOpenAiSpeech(req.body, deps.maxTextChars, deps.catalogue),
      sinkFor: (o, read) =>
        read.streamFormat === 'sse' ? framedChunkSink(o, sseFraming(o.job.characters)) : chunkedSink(o),
      sendError: sendOpenAiError,
    }),
  );
  router.use(speechErrorHandler(deps.logger, sendOpenAiError));
  return router;
}
