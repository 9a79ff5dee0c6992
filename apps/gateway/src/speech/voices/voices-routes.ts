import express, { Router, type Request } from 'express';
import { SpeechError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { AnalysisPool } from '@platform/voice-analysis';
import {
  checkVoiceChange,
  createClonedVoice,
  deleteClonedVoice,
  DEFAULT_VOICE_SETTINGS,
  editClonedVoice,
  findVoice,
  getSampleAudio,
  getVoiceSettings,
  listVoices,
  premadeImmutable,
  setVoiceSettings,
  voiceNotFound,
  type SampleInput,
  type SpeechStore,
  type StoredVoice,
} from '@platform/speech-store';
import { accountErrors, callerOf, handle } from '../user/account';
import type { CloneAdmission } from './clone-admission';
import { cloneFromSamples, sampleMediaType } from './clone-samples';
import { parseVoiceUpload, type UploadedFile } from './multipart';
import { UPLOAD_LIMITS } from './upload-limits';
import { parseSettingsBody } from './settings-body';
import { voiceBody } from './voice-body';
import { parseBoolean, parseDescription, parseLabels, parseName } from './voice-fields';

export interface VoicesDeps {
  store: SpeechStore;
  logger: Logger;
  /** The platform as clients see it, for absolute `preview_url`s. */
  publicUrl: string;
  /** Worker threads that decode and analyse clone samples (never the event loop). */
  analysis: AnalysisPool;
  /** Voice uploads in progress per account. */
  admission: CloneAdmission;
}

function toSamples(files: UploadedFile[]): SampleInput[] {
  return files.map((f) => ({ fileName: f.fileName, mimeType: sampleMediaType(f.bytes), bytes: f.bytes }));
}

function idParam(req: Request, name: string): string {
  return String(req.params[name] ?? '').slice(0, 200);
}

/** Voices of seed 000 and the hosted API's settings endpoints, with cloning from uploads. */
export function voicesRoutes(deps: VoicesDeps): Router {
  const { store } = deps;
  const publicUrl = deps.publicUrl.replace(/\/$/, '');
  const router = Router();

  const previewUrl = (voice: StoredVoice): string | null => {
    if (voice.category === 'premade') return voice.premade.previewUrl ?? null;
    const first = voice.doc.samples[0];
    return first ? `${publicUrl}/v1/voices/${voice.doc._id}/samples/${first.sample_id}/audio` : null;
  };

  router.get(
    '/voices',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:read');
      const voices = await listVoices(store, caller.accountId);
      res.json({ voices: voices.map((v) => voiceBody(v)) });
    }),
  );

  router.get(
    '/voices/settings/default',
    handle(async (req, res) => {
      callerOf(req, 'speech:read');
      res.json(DEFAULT_VOICE_SETTINGS);
    }),
  );

  router.post(
    '/voices/add',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:write');
      // Permission and quota first, then the upload is read: an account without a free slot is
      // answered before its bytes are, and never costs an analysis.
      await checkVoiceChange(store, caller.accountId, caller.plan, 'add');
      const leave = deps.admission.enter(caller.accountId);
      try {
        const upload = await parseVoiceUpload(req);
        const name = parseName(upload.fields.get('name'), true)!;
        const description = parseDescription(upload.fields.get('description')) ?? null;
        const labels = parseLabels(upload.fields.get('labels')) ?? {};
        if (upload.files.length === 0) throw new SpeechError(400, 'bad_request', 'At least one audio file is required in the field "files".');
        const cloned = await cloneFromSamples(deps.analysis, toSamples(upload.files));
        const doc = await createClonedVoice(store, {
          accountId: caller.accountId,
          plan: caller.plan,
          name,
          description,
          labels,
          samples: cloned.samples,
          analysis: cloned.analysis as unknown as Record<string, number>,
          engineParams: cloned.engineParams,
        });
        // `requires_verification` is not in the seed; the official SDK's `voices.ivc.create` requires it.
        res.status(200).json({ voice_id: doc._id, name: doc.name, category: 'cloned', requires_verification: false });
      } finally {
        leave();
      }
    }),
  );

  router.get(
    '/voices/:voiceId',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:read');
      const voiceId = idParam(req, 'voiceId');
      const voice = await findVoice(store, caller.accountId, voiceId);
      if (!voice) throw voiceNotFound(voiceId);
      const settings = await getVoiceSettings(store, caller.accountId, voiceId);
      res.json(voiceBody(voice, { previewUrl: previewUrl(voice), settings }));
    }),
  );

  router.get(
    '/voices/:voiceId/settings',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:read');
      const voiceId = idParam(req, 'voiceId');
      if (!(await findVoice(store, caller.accountId, voiceId))) throw voiceNotFound(voiceId);
      res.json(await getVoiceSettings(store, caller.accountId, voiceId));
    }),
  );

  router.post(
    '/voices/:voiceId/settings/edit',
    express.json({ limit: '8kb', type: () => true }),
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:write');
      const voiceId = idParam(req, 'voiceId');
      const patch = parseSettingsBody(req.body);
      if (!(await findVoice(store, caller.accountId, voiceId))) throw voiceNotFound(voiceId);
      await setVoiceSettings(store, caller.accountId, voiceId, patch);
      res.json({ status: 'ok' });
    }),
  );

  router.get(
    '/voices/:voiceId/samples/:sampleId/audio',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:read');
      const voiceId = idParam(req, 'voiceId');
      const found = await getSampleAudio(store, caller.accountId, voiceId, idParam(req, 'sampleId'));
      if (!found) throw new SpeechError(404, 'voice_not_found', `No such sample of the voice ${voiceId}.`);
      res.status(200).set('Content-Type', found.sample.mime_type).end(found.bytes);
    }),
  );

  router.post(
    '/voices/:voiceId/edit',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:write');
      const voiceId = idParam(req, 'voiceId');
      const existing = await findVoice(store, caller.accountId, voiceId);
      if (!existing) throw voiceNotFound(voiceId);
      if (existing.category === 'premade') throw premadeImmutable();
      const leave = deps.admission.enter(caller.accountId);
      try {
        const upload = await parseVoiceUpload(req);
        const name = parseName(upload.fields.get('name'), false);
        const description = parseDescription(upload.fields.get('description'));
        const labels = parseLabels(upload.fields.get('labels'));
        const replace = parseBoolean(upload.fields.get('replace_samples'), 'replace_samples');
        let samples: Parameters<typeof editClonedVoice>[1]['samples'];
        if (upload.files.length > 0 || replace) {
          if (upload.files.length === 0) throw new SpeechError(400, 'bad_request', 'replace_samples needs at least one file.');
          const added = toSamples(upload.files);
          const keep = replace ? [] : existing.doc.samples.map((s) => s.sample_id);
          if (keep.length + added.length > UPLOAD_LIMITS.maxFiles) throw new SpeechError(400, 'bad_request', `A voice has at most ${UPLOAD_LIMITS.maxFiles} samples.`);
          // The plan's allowance before the stored samples are read and anything is analysed.
          await checkVoiceChange(store, caller.accountId, caller.plan, 'edit');
          const kept: SampleInput[] = [];
          for (const id of keep) {
            const got = await getSampleAudio(store, caller.accountId, voiceId, id);
            if (got) kept.push({ fileName: got.sample.file_name, mimeType: got.sample.mime_type, bytes: got.bytes });
          }
          const cloned = await cloneFromSamples(deps.analysis, [...kept, ...added]);
          samples = { keep, add: cloned.samples.slice(kept.length), analysis: cloned.analysis as unknown as Record<string, number>, engineParams: cloned.engineParams };
        }
        await editClonedVoice(store, {
          accountId: caller.accountId,
          plan: caller.plan,
          voiceId,
          ...(name !== undefined ? { name } : {}),
          ...(description !== undefined ? { description } : {}),
          ...(labels !== undefined ? { labels } : {}),
          ...(samples ? { samples } : {}),
        });
        res.json({ status: 'ok' });
      } finally {
        leave();
      }
    }),
  );

  router.delete(
    '/voices/:voiceId',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:write');
      const voiceId = idParam(req, 'voiceId');
      const existing = await findVoice(store, caller.accountId, voiceId);
      if (!existing) throw voiceNotFound(voiceId);
      if (existing.category === 'premade') throw premadeImmutable();
      if (!(await deleteClonedVoice(store, caller.accountId, voiceId))) throw voiceNotFound(voiceId);
      res.json({ status: 'ok' });
    }),
  );

  router.use('/voices', accountErrors(deps.logger));
  return router;
}
