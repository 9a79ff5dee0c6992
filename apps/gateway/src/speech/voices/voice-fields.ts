import { voiceAddForm, voiceEditForm } from '@platform/contracts';
import { readSpeechInput } from '../speech-input';

/** The multipart fields of adding or editing a voice, read and checked before anything is done. */
interface VoiceForm {
  /** Undefined: not given (editing: unchanged). */
  name?: string;
  /** Null: no description. Undefined: not given. */
  description?: string | null;
  labels?: Record<string, string>;
  /** Edit: the new files replace every sample. */
  replaceSamples: boolean;
}

/**
 * Reads every field the hosted API defines for `POST /v1/voices/add` and `/v1/voices/{id}/edit`
 * (and our `replace_samples`) with their contracts (libs/contracts/src/speech/voice-form.ts), so a
 * malformed one is a 400 before an upload is analysed or a voice changed. A field not given stays
 * out of the answer, so an edit changes only what it names.
 */
export function readVoiceForm(fields: Map<string, string>, action: 'add' | 'edit'): VoiceForm {
  // Object.fromEntries defines each field as an own property: a field named `__proto__` is just ignored.
  const form = readSpeechInput(action === 'add' ? voiceAddForm : voiceEditForm, Object.fromEntries(fields));
  return {
    ...(form.name !== undefined ? { name: form.name } : {}),
    ...(form.description !== undefined ? { description: form.description } : {}),
    ...(form.labels !== undefined ? { labels: form.labels } : {}),
    replaceSamples: form.replace_samples,
  };
}
