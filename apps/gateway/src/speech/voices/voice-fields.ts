import { SpeechError } from '@platform/errors';
import { UPLOAD_LIMITS } from './upload-limits';

function bad(message: string): SpeechError {
  return new SpeechError(400, 'bad_request', message);
}

export function parseName(value: string | undefined, required: boolean): string | undefined {
  if (value === undefined) {
    if (required) throw bad('The field name is required.');
    return undefined;
  }
  const name = value.trim();
  if (name.length === 0) throw bad('The field name must not be empty.');
  if ([...name].length > UPLOAD_LIMITS.maxNameChars) throw bad(`The field name is longer than ${UPLOAD_LIMITS.maxNameChars} characters.`);
  return name;
}

export function parseDescription(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if ([...text].length > UPLOAD_LIMITS.maxDescriptionChars) throw bad(`The field description is longer than ${UPLOAD_LIMITS.maxDescriptionChars} characters.`);
  return text.length > 0 ? text : null;
}

/** `labels` is JSON text of an object whose values are all strings. */
export function parseLabels(value: string | undefined): Record<string, string> | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw bad('The field labels must be JSON text of an object of strings.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad('The field labels must be a JSON object of strings.');
  const entries = Object.entries(parsed);
  if (entries.length > UPLOAD_LIMITS.maxLabels) throw bad(`At most ${UPLOAD_LIMITS.maxLabels} labels.`);
  const labels: Record<string, string> = {};
  for (const [key, v] of entries) {
    if (typeof v !== 'string') throw bad(`The label ${key.slice(0, 50)} must be a string.`);
    if (key.length === 0 || key.length > UPLOAD_LIMITS.maxLabelKeyChars) throw bad(`Label keys are 1 to ${UPLOAD_LIMITS.maxLabelKeyChars} characters.`);
    if (v.length > UPLOAD_LIMITS.maxLabelValueChars) throw bad(`Label values are at most ${UPLOAD_LIMITS.maxLabelValueChars} characters.`);
    labels[key] = v;
  }
  return labels;
}

export function parseBoolean(value: string | undefined, name: string): boolean {
  if (value === undefined) return false;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw bad(`The field ${name} must be true or false.`);
}
