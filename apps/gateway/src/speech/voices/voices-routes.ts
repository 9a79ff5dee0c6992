import express, { Router, type Request } from 'express';
import { sampleIdParam, voiceIdParam, type StatusOk } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import {
  deleteClonedVoice,
  DEFAULT_VOICE_SETTINGS,
  findVoice,
  getSampleAudio,
  getVoiceSettings,
  listVoices,
  premadeImmutable,
  setVoiceSettings,
  voiceNotFound,
  type StoredVoice,
} from '@platform/speech-store';
import { requestCaller } from '../caller';
import { speechErrorHandler } from '../speech-errors';
import { parseVoiceUpload } from './multipart';
import { parseSettingsBody } from './settings-body';
import { voiceBody } from './voice-body';
import { addVoice, editVoice, type VoiceChangeDeps } from './voice-changes';

export interface VoicesDeps extends VoiceChangeDeps {
  logger: Logger;
  /** The platform as clients see it, for absolute `preview_url`s. */
  publicUrl: string;
}

/** The ids in the voices routes' paths, each read with its contract (cut to 200 characters). */
const ID_PARAMS = { voiceId: voiceIdParam, sampleId: sampleIdParam };

function idParam(req: Request, name: keyof typeof ID_PARAMS): string {
  return ID_PARAMS[name].parse(String(req.params[name] ?? ''));
}

/** The speech API's voices and the hosted API's settings endpoints, with cloning from uploads. */
export function voicesRoutes(deps: VoicesDeps): Router {
  const { store } = deps;
  const publicUrl = deps.publicUrl.replace(/\/$/, '');
  const router = Router();

  const previewUrl = (voice: StoredVoice): string | null => {
    if (voice.category === 'premade') return voice.premade.previewUrl ?? null;
    const first = voice.doc.samples[0];
    return first ? `${publicUrl}/v1/voices/${voice.doc._id}/samples/${first.sample_id}/audio` : null;
  };

  router.get('/voices', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const voices = await listVoices(store, caller.sub);
    res.json({ voices: voices.map((v) => voiceBody(v)) });
  });

  router.get('/voices/settings/default', async (req, res) => {
    requestCaller(req, 'speech:read');
    res.json(DEFAULT_VOICE_SETTINGS);
  });

  router.post('/voices/add', async (req, res) => {
    const doc = await addVoice(deps, requestCaller(req, 'speech:write'), () => parseVoiceUpload(req));
    // `requires_verification` is not in our interface; the official SDK's `voices.ivc.create` requires it.
    res.status(200).json({ voice_id: doc._id, name: doc.name, category: 'cloned', requires_verification: false });
  });

  router.get('/voices/:voiceId', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const voiceId = idParam(req, 'voiceId');
    const voice = await findVoice(store, caller.sub, voiceId);
    if (!voice) throw voiceNotFound(voiceId);
    const settings = await getVoiceSettings(store, caller.sub, voiceId);
    res.json(voiceBody(voice, { previewUrl: previewUrl(voice), settings }));
  });

  router.get('/voices/:voiceId/settings', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const voiceId = idParam(req, 'voiceId');
    if (!(await findVoice(store, caller.sub, voiceId))) throw voiceNotFound(voiceId);
    res.json(await getVoiceSettings(store, caller.sub, voiceId));
  });

  router.post('/voices/:voiceId/settings/edit', express.json({ limit: '8kb', type: () => true }), async (req, res) => {
    const caller = requestCaller(req, 'speech:write');
    const voiceId = idParam(req, 'voiceId');
    const patch = parseSettingsBody(req.body);
    if (!(await findVoice(store, caller.sub, voiceId))) throw voiceNotFound(voiceId);
    await setVoiceSettings(store, caller.sub, voiceId, patch);
    res.json({ status: 'ok' } satisfies StatusOk);
  });

  router.get('/voices/:voiceId/samples/:sampleId/audio', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const voiceId = idParam(req, 'voiceId');
    const found = await getSampleAudio(store, caller.sub, voiceId, idParam(req, 'sampleId'));
    if (!found) throw new SpeechError(404, 'voice_not_found', `No such sample of the voice ${voiceId}.`);
    res.status(200).set('Content-Type', found.sample.mime_type).end(found.bytes);
  });

  router.post('/voices/:voiceId/edit', async (req, res) => {
    await editVoice(deps, requestCaller(req, 'speech:write'), idParam(req, 'voiceId'), () => parseVoiceUpload(req));
    res.json({ status: 'ok' } satisfies StatusOk);
  });

  router.delete('/voices/:voiceId', async (req, res) => {
    const caller = requestCaller(req, 'speech:write');
    const voiceId = idParam(req, 'voiceId');
    const existing = await findVoice(store, caller.sub, voiceId);
    if (!existing) throw voiceNotFound(voiceId);
    if (existing.category === 'premade') throw premadeImmutable();
    if (!(await deleteClonedVoice(store, caller.sub, voiceId))) throw voiceNotFound(voiceId);
    res.json({ status: 'ok' } satisfies StatusOk);
  });

  router.use(speechErrorHandler(deps.logger));
  return router;
}
