import { Router } from 'express';
import type { Redis } from 'ioredis';
import { PREVIEW_FILE } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import {
  DEFAULT_VOICE_SETTINGS,
  bestModel,
  findPremadeVoice,
  type Model,
  type PremadeVoice,
  type VoiceCatalogue,
} from '@platform/speech-engine';
import { sendSpeechError } from '../speech-errors';
import type { JobRunner } from './job-runner';
import { frameError, pipelineError } from './synthesis';

/** Where a premade voice's preview is served (`preview_url` of `GET /v1/voices/{id}`). */
export function premadePreviewUrl(publicUrl: string, voiceId: string): string {
  return `${publicUrl.replace(/\/$/, '')}/v1/voice-previews/${encodeURIComponent(voiceId)}.mp3`;
}

interface PreviewDeps {
  runner: JobRunner;
  catalogue: readonly Model[];
  /** The deployment's voices (default: the premade ones). */
  voices?: Pick<VoiceCatalogue, 'findVoice'>;
  redis: Redis;
  keyPrefix: string;
  logger: Logger;
}

const PREVIEW_FORMAT = 'mp3_44100_128';

/**
 * `GET /voice-previews/{voice_id}.mp3`: the voice reading its preview sentence. Synthesised by the
 * workers the first time it is asked for, then kept in Redis (no expiry: the catalogue is fixed,
 * so each preview is made once per deployment).
 */
export function previewRoutes(deps: PreviewDeps): Router {
  const router = Router();
  const inFlight = new Map<string, Promise<Buffer>>();

  async function makePreview(voice: PremadeVoice): Promise<Buffer> {
    // As the hosted model ids speak it: the neural model where it speaks the voice's language.
    const modelId = bestModel(voice.engine.voice, deps.catalogue).model_id;
    const cacheKey = `${deps.keyPrefix}:preview:${voice.voice_id}:${modelId}:${PREVIEW_FORMAT}`;
    const cached = await deps.redis.getBuffer(cacheKey);
    if (cached && cached.length > 0) return cached;
    const parts: Buffer[] = [];
    const jobId = deps.runner.newJobId();
    const signal = new AbortController().signal;
    const frames = deps.runner.run(
      jobId,
      {
        voice: { voiceId: voice.voice_id, name: voice.name, category: 'premade', engine: voice.engine },
        modelId,
        text: voice.previewText,
        settings: { ...DEFAULT_VOICE_SETTINGS, ...voice.settings },
        outputFormat: PREVIEW_FORMAT,
        kind: 'convert',
        recordHistory: false,
      },
      { priority: 5, signal },
    );
    for await (const frame of frames) {
      const failure = frameError(frame);
      if (failure) throw failure;
      if (frame.type === 'audio') parts.push(frame.data);
    }
    const audio = Buffer.concat(parts);
    await deps.redis.set(cacheKey, audio);
    return audio;
  }

  router.get('/voice-previews/:file', async (req, res) => {
    const match = PREVIEW_FILE.exec(String(req.params.file));
    const find = deps.voices?.findVoice ?? findPremadeVoice;
    const voice = match?.[1] ? find(match[1]) : null;
    if (!voice) {
      sendSpeechError(res, new SpeechError(404, 'voice_not_found', 'no premade voice has this preview'));
      return;
    }
    try {
      let pending = inFlight.get(voice.voice_id);
      if (!pending) {
        pending = makePreview(voice).finally(() => inFlight.delete(voice.voice_id));
        inFlight.set(voice.voice_id, pending);
      }
      const audio = await pending;
      res.status(200).set({ 'Content-Type': 'audio/mpeg', 'Cache-Control': 'public, max-age=86400' }).end(audio);
    } catch (err) {
      deps.logger.warn({ err, voiceId: voice.voice_id }, 'preview synthesis failed');
      sendSpeechError(res, pipelineError(err));
    }
  });
  return router;
}
