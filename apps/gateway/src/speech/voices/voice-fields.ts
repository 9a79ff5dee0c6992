import { SpeechError } from '@platform/errors';
import { UPLOAD_LIMITS } from './upload-limits';

function bad(message: string): SpeechError {
  return new SpeechError(400, 'bad_request', message);
}

function parseName(value: string | undefined, required: boolean): string | undefined {
  if (value === undefined) {
    if (required) throw bad('The field name is required.');
    return undefined;
  }
  const name = value.trim();
  if (name.length === 0) throw bad('The field name must not be empty.');
  if ([...name].length > UPLOAD_LIMITS.maxNameChars)
    throw bad(`The field name is longer than ${UPLOAD_LIMITS.maxNameChars} characters.`);
  return name;
}

function parseDescription(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if ([...text].length > UPLOAD_LIMITS.maxDescriptionChars)
    throw bad(`The field description is longer than ${UPLOAD_LIMITS.maxDescriptionChars} characters.`);
  return text.length > 0 ? text : null;
}

/** `labels` is JSON text of an object whose values are all strings. */
function parseLabels(value: string | undefined): Record<string, string> | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw bad('The field labels must be JSON text of an object of strings.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw bad('The field labels must be a JSON object of strings.');
  const entries = Object.entries(parsed);
  if (entries.length > UPLOAD_LIMITS.maxLabels) throw bad(`At most ${UPLOAD_LIMITS.maxLabels} labels.`);
  // Prototype-free: the keys are the client's, and `__proto__` must be a label like any other.
  const labels = Object.create(null) as Record<string, string>;
  for (const [key, v] of entries) {
    if (typeof v !== 'string') throw bad(`The label ${key.slice(0, 50)} must be a string.`);
    if (key.length === 0 || key.length > UPLOAD_LIMITS.maxLabelKeyChars)
      throw bad(`Label keys are 1 to ${UPLOAD_LIMITS.maxLabelKeyChars} characters.`);
    if (v.length > UPLOAD_LIMITS.maxLabelValueChars)
      throw bad(`Label values are at most ${UPLOAD_LIMITS.maxLabelValueChars} characters.`);
    labels[key] = v;
  }
  return labels;
}

/**
 * A true/false field: `true` or `false` in any case (the Python SDK sends `true`, a hand-written form
 * may send `True`); not given is `false`.
 */
function parseBoolean(value: string | undefined, name: string): boolean {
  if (value === undefined) return false;
  const word = value.trim().toLowerCase();
  if (word === 'true') return true;
  if (word === 'false' || word === '') return false;
  throw bad(`The field ${name} must be true or false.`);
}

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
 * An optional field as given, or undefined when it is not. The official SDKs' ways of leaving a
 * field out count as not given: the JS SDK omits it; the Python SDK always sends `labels`, as the
 * JSON text `null` when the caller gave none.
 */
function optional(fields: Map<string, string>, name: string): string | undefined {
  const value = fields.get(name);
  return value === undefined || value.trim() === 'null' ? undefined : value;
}

/**
 * Reads every field the hosted API defines for `POST /v1/voices/add` and `/v1/voices/{id}/edit`
 * (and our `replace_samples`), so a malformed one is a 400 before an upload is analysed or a voice
 * changed. `remove_background_noise` and `moderate_metadata` are checked and have no effect
 * (docs/speech.md, Voices).
 */
export function readVoiceForm(fields: Map<string, string>, action: 'add' | 'edit'): VoiceForm {
  const name = parseName(action === 'add' ? fields.get('name') : optional(fields, 'name'), action === 'add');
  const description = parseDescription(optional(fields, 'description'));
  const labels = parseLabels(optional(fields, 'labels'));
  parseBoolean(optional(fields, 'remove_background_noise'), 'remove_background_noise');
  parseBoolean(optional(fields, 'moderate_metadata'), 'moderate_metadata');
  const replaceSamples = parseBoolean(optional(fields, 'replace_samples'), 'replace_samples');
  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(labels !== undefined ? { labels } : {}),
    replaceSamples,
  };
}
