import { z } from 'zod/v4';
import { API_KEY_SCOPES } from '@platform/oauth-resource';
import { checkedParam, pageSizeParam } from './query';

export const API_KEY_NAME_MAX = 100;
export const API_KEY_PAGE_DEFAULT = 20;
export const API_KEY_PAGE_MAX = 100;
/** An API key's id: `key_` and 16 hex digits. */
export const API_KEY_ID = /^key_[0-9a-f]{16}$/;

const NAME_MESSAGE = `name must be a string of 1 to ${API_KEY_NAME_MAX} characters.`;
const SCOPES_MESSAGE = `scopes must be a non-empty list of distinct values from: ${API_KEY_SCOPES.join(', ')}.`;

/** `POST /v1/api-keys`: `{name, scopes?}`; `scopes` a non-empty subset of the API-key scopes (default all). */
export const newApiKeyBody = z.strictObject(
  {
    name: z
      .string({ error: NAME_MESSAGE })
      .trim()
      .min(1, { error: NAME_MESSAGE })
      .max(API_KEY_NAME_MAX, { error: NAME_MESSAGE })
      .meta({ pattern: '\\S', description: `Trimmed; 1 to ${API_KEY_NAME_MAX} characters.` }),
    scopes: z
      .array(z.enum(API_KEY_SCOPES, { error: SCOPES_MESSAGE }), { error: SCOPES_MESSAGE })
      .min(1, { error: SCOPES_MESSAGE })
      .refine((scopes) => new Set(scopes).size === scopes.length, { error: SCOPES_MESSAGE })
      .optional()
      .meta({ uniqueItems: true, description: 'Default: every scope.' }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field ${JSON.stringify(issue.keys[0]!.slice(0, 40))}; a key has name and scopes.`
        : 'The body must be a JSON object {name, scopes?}.',
  },
);
export type NewApiKeyBody = z.output<typeof newApiKeyBody>;

/** `GET /v1/api-keys?page_size=1..100&start_after_key_id=key_…`. */
export const apiKeyPageQuery = z.object({
  page_size: pageSizeParam(
    'page_size',
    4,
    API_KEY_PAGE_MAX,
    `page_size must be an integer from 1 to ${API_KEY_PAGE_MAX}`,
  ).meta({
    default: API_KEY_PAGE_DEFAULT,
    description: `1–${API_KEY_PAGE_MAX}, default ${API_KEY_PAGE_DEFAULT}.`,
  }),
  start_after_key_id: checkedParam(
    'start_after_key_id',
    (v) => API_KEY_ID.test(v),
    'start_after_key_id is not a key id',
  ).meta({ pattern: API_KEY_ID.source, description: 'The previous page’s `last_key_id`.' }),
});

const scopeList = z.array(z.enum(API_KEY_SCOPES)).min(1).meta({ uniqueItems: true });

const apiKeyFields = {
  key_id: z.string().regex(API_KEY_ID),
  name: z.string().min(1).max(API_KEY_NAME_MAX),
  scopes: scopeList,
  hint: z.string().meta({ description: 'The key’s first 10 characters.' }),
  created_at: z.iso.datetime({ offset: true }),
};

/** An API key as listed (never its secret). */
export const apiKey = z.looseObject(apiKeyFields);

/** `POST /v1/api-keys`' answer: the key with its secret, shown once. */
export const newApiKey = z.looseObject({
  ...apiKeyFields,
  key: z
    .string()
    .regex(/^sk_[0-9a-f]{64}$/)
    .meta({ description: 'The secret, in this answer only.' }),
});

/** `GET /v1/api-keys`. */
export const apiKeyPage = z.looseObject({
  api_keys: z.array(apiKey),
  has_more: z.boolean(),
  last_key_id: z.string().regex(API_KEY_ID).nullable(),
});
