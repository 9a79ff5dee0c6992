import { z } from 'zod/v4';

/**
 * Bounds of a voice upload (`POST /v1/voices/add`, `/v1/voices/{id}/edit`): the gateway enforces the byte
 * and file bounds while the request streams in, the text bounds with the form contracts below, and the
 * API document states them all from here.
 */
export const VOICE_UPLOAD_LIMITS = {
  /** Files per request. */
  maxFiles: 10,
  /** Bytes per file. */
  maxFileBytes: 10 * 1024 * 1024,
  /** Bytes of all files of one request together. */
  maxTotalBytes: 40 * 1024 * 1024,
  /** Seconds per file, and at least this many seconds per file. */
  maxFileSeconds: 120,
  minFileSeconds: 1,
  /** Text fields: how many, and bytes each. */
  maxFields: 20,
  maxFieldBytes: 8 * 1024,
  maxNameChars: 100,
  maxDescriptionChars: 1000,
  maxLabels: 20,
  maxLabelKeyChars: 50,
  maxLabelValueChars: 200,
} as const;

const L = VOICE_UPLOAD_LIMITS;

/** Characters as the limits count them (code points, as JSON Schema's `maxLength` does). */
const chars = (text: string) => [...text].length;

/**
 * The official SDKs' ways of leaving a field out count as not given: the JS SDK omits it; the Python
 * SDK always sends `labels`, as the JSON text `null` when the caller gave none.
 */
const notGiven = (value: unknown) => (typeof value === 'string' && value.trim() === 'null' ? undefined : value);

/** An optional field; the text `null` is not given. */
const optionalField = <Schema extends z.ZodType>(schema: Schema) =>
  z.preprocess(notGiven, schema.optional()).optional();

const name = (description: string) =>
  z
    .string({ error: 'The field name is required.' })
    .trim()
    .min(1, { error: 'The field name must not be empty.' })
    .refine((text) => chars(text) <= L.maxNameChars, {
      error: `The field name is longer than ${L.maxNameChars} characters.`,
    })
    .meta({ maxLength: L.maxNameChars, description });

/** Trimmed; empty is no description (null). */
const description = z
  .string()
  .trim()
  .refine((text) => chars(text) <= L.maxDescriptionChars, {
    error: `The field description is longer than ${L.maxDescriptionChars} characters.`,
  })
  .transform((text) => (text.length > 0 ? text : null))
  .meta({ maxLength: L.maxDescriptionChars, description: 'Empty: no description.' });

const LABELS_HELP = `JSON text of an object of strings: at most ${L.maxLabels} labels, keys 1–${L.maxLabelKeyChars}, values at most ${L.maxLabelValueChars} characters. \`null\` or empty: not given.`;

/**
 * `labels` is JSON text of an object whose values are all strings; the first problem in the order
 * the entries come is the answer.
 */
function readLabels(text: string, ctx: z.RefinementCtx): Record<string, string> {
  const refuse = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refuse('The field labels must be JSON text of an object of strings.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return refuse('The field labels must be a JSON object of strings.');
  const entries = Object.entries(parsed);
  if (entries.length > L.maxLabels) return refuse(`At most ${L.maxLabels} labels.`);
  // Prototype-free: the keys are the client's, and `__proto__` must be a label like any other.
  const labels = Object.create(null) as Record<string, string>;
  for (const [key, value] of entries) {
    if (typeof value !== 'string') return refuse(`The label ${key.slice(0, 50)} must be a string.`);
    if (key.length === 0 || key.length > L.maxLabelKeyChars)
      return refuse(`Label keys are 1 to ${L.maxLabelKeyChars} characters.`);
    if (value.length > L.maxLabelValueChars)
      return refuse(`Label values are at most ${L.maxLabelValueChars} characters.`);
    labels[key] = value;
  }
  return labels;
}

/** Empty (the Python SDK's None) or `null`: not given. */
const labels = z
  .preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : notGiven(value)),
    z.string().transform(readLabels).optional(),
  )
  .optional()
  .meta({ description: LABELS_HELP });

/**
 * A true/false field: `true` or `false` in any case (the Python SDK sends `true`, a hand-written form
 * may send `True`); not given, empty or `null` is `false`.
 */
const flag = (field: string, description: string) =>
  optionalField(
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((word) => word === 'true' || word === 'false' || word === '', {
        error: `The field ${field} must be true or false.`,
      }),
  )
    .transform((word) => word === 'true')
    .meta({ type: 'string', pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|null|)$', description });

/**
 * The text fields every voice form has, checked in this order (the first problem is the answer);
 * `remove_background_noise` and `moderate_metadata` are checked and have no effect (docs/speech.md, Voices).
 * Unknown fields are ignored.
 */
const formFields = (replaceSamples: string) => ({
  description: optionalField(description),
  labels,
  remove_background_noise: flag('remove_background_noise', '`true` or `false` (any case); accepted, no effect.'),
  moderate_metadata: flag('moderate_metadata', 'Accepted, no effect.'),
  replace_samples: flag('replace_samples', replaceSamples),
});

/** `POST /v1/voices/add`'s text fields (the files come apart, read while the upload streams). */
export const voiceAddForm = z.object({
  // Required: the text `null` is a name here.
  name: name('Required.'),
  ...formFields('Edit only: checked, no effect when adding.'),
});

/** `POST /v1/voices/{voice_id}/edit`'s text fields: every one optional, not given is unchanged. */
export const voiceEditForm = z.object({
  name: optionalField(name('Unchanged when left out.')),
  ...formFields('`true`: the new files replace every sample instead of being added.'),
});

/** The form's `files`, for the API document (the gateway reads them with its streaming parser). */
export const voiceFormFiles = z
  .array(z.string().meta({ contentMediaType: 'application/octet-stream' }))
  .max(L.maxFiles)
  .meta({
    description: `WAV, MP3, Ogg/Opus or FLAC recordings (recognised by their bytes), ${L.minFileSeconds}–${L.maxFileSeconds} s each, at most ${L.maxFileBytes / 1024 / 1024} MB each and ${L.maxTotalBytes / 1024 / 1024} MB together, at least 0.5 s of speech in all. Field name \`files\` or \`files[]\`.`,
  });
