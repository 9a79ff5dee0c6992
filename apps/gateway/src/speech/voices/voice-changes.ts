import { SpeechError } from '@platform/errors';
import {
  checkVoiceChange,
  createClonedVoice,
  editClonedVoice,
  findVoice,
  newId,
  premadeImmutable,
  voiceNotFound,
  type SampleInput,
  type SpeechStore,
  type VoiceDoc,
} from '@platform/speech-store';
import type { SpeechCaller } from '../caller';
import type { AnalysisQueue } from './analysis-queue';
import type { CloneAdmission } from './clone-admission';
import { cloneFromSamples, sampleMediaType } from './clone-samples';
import type { ParsedUpload, UploadedFile } from './multipart';
import { UPLOAD_LIMITS } from './upload-limits';
import { readVoiceForm } from './voice-fields';

/** What adding or editing a voice needs: the store, the analysis queue, the per-account admission. */
export interface VoiceChangeDeps {
  store: SpeechStore;
  /** Voice-analysis jobs, run by the synthesis workers (never the gateway). */
  analysis: AnalysisQueue;
  /** Voice uploads in progress per account. */
  admission: CloneAdmission;
}

/** Reads the multipart upload; called only once the account may change a voice. */
type ReadUpload = () => Promise<ParsedUpload>;

function toSamples(files: UploadedFile[]): SampleInput[] {
  return files.map((f) => ({ fileName: f.fileName, mimeType: sampleMediaType(f.bytes), bytes: f.bytes }));
}

/** `POST /v1/voices/add`: a cloned voice from uploaded samples. */
export async function addVoice(deps: VoiceChangeDeps, caller: SpeechCaller, readUpload: ReadUpload) {
  // Permission and quota first, then the upload is read: an account without a free slot is
  // answered before its bytes are, and never costs an analysis.
  await checkVoiceChange(deps.store, caller.sub, caller.plan, 'add');
  const leave = deps.admission.enter(caller.sub);
  try {
    const upload = await readUpload();
    const form = readVoiceForm(upload.fields, 'add');
    if (upload.files.length === 0)
      throw new SpeechError(400, 'bad_request', 'At least one audio file is required in the field "files".');
    const voiceId = newId();
    const cloned = await cloneFromSamples(deps.store, deps.analysis, voiceId, [], toSamples(upload.files));
    return await createClonedVoice(deps.store, {
      voiceId,
      accountId: caller.sub,
      plan: caller.plan,
      name: form.name!,
      description: form.description ?? null,
      labels: form.labels ?? {},
      samples: cloned.stored,
      analysis: cloned.analysis as unknown as Record<string, number>,
      engineParams: cloned.engineParams,
    });
  } finally {
    leave();
  }
}

type SampleChange = NonNullable<Parameters<typeof editClonedVoice>[1]['samples']>;

/**
 * New samples for a voice (added to the kept ones, or replacing them all): the clone is made
 * again from every sample it will have. Undefined when the edit changes no sample.
 */
async function sampleChange(
  deps: VoiceChangeDeps,
  caller: SpeechCaller,
  voice: VoiceDoc,
  upload: ParsedUpload,
  replace: boolean,
): Promise<SampleChange | undefined> {
  if (upload.files.length === 0 && !replace) return undefined;
  if (upload.files.length === 0) throw new SpeechError(400, 'bad_request', 'replace_samples needs at least one file.');
  const added = toSamples(upload.files);
  const kept = replace ? [] : voice.samples;
  if (kept.length + added.length > UPLOAD_LIMITS.maxFiles)
    throw new SpeechError(400, 'bad_request', `A voice has at most ${UPLOAD_LIMITS.maxFiles} samples.`);
  // The plan's allowance before the stored samples are read and anything is analysed.
  await checkVoiceChange(deps.store, caller.sub, caller.plan, 'edit');
  const cloned = await cloneFromSamples(deps.store, deps.analysis, voice._id, kept, added);
  return {
    keep: kept.map((s) => s.sample_id),
    add: cloned.stored,
    analysis: cloned.analysis as unknown as Record<string, number>,
    engineParams: cloned.engineParams,
  };
}

/** `POST /v1/voices/{voice_id}/edit`: name, description, labels and samples of the account's cloned voice. */
export async function editVoice(
  deps: VoiceChangeDeps,
  caller: SpeechCaller,
  voiceId: string,
  readUpload: ReadUpload,
): Promise<void> {
  const existing = await findVoice(deps.store, caller.sub, voiceId);
  if (!existing) throw voiceNotFound(voiceId);
  if (existing.category === 'premade') throw premadeImmutable();
  const leave = deps.admission.enter(caller.sub);
  try {
    const upload = await readUpload();
    const { replaceSamples, ...changes } = readVoiceForm(upload.fields, 'edit');
    const samples = await sampleChange(deps, caller, existing.doc, upload, replaceSamples);
    await editClonedVoice(deps.store, {
      accountId: caller.sub,
      plan: caller.plan,
      voiceId,
      ...changes,
      ...(samples ? { samples } : {}),
    });
  } finally {
    leave();
  }
}
