import { z } from 'zod/v4';
import { API_KEY_SCOPES } from '@platform/oauth-resource';

// Auth's internal API key endpoints (docs/architecture.md "Internal endpoints of auth"), which the gateway
// calls with the internal secret; not in the public document.

/** An account or API key id in a path or a page cursor. */
export const INTERNAL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** `POST /internal/api-keys/lookup`: the key a request presented. */
export const internalApiKeyLookup = z.object({ key: z.string().min(1).max(200) });

/** `POST /internal/accounts/{id}/api-keys`. */
export const internalApiKeyCreation = z.object({
  name: z.string().trim().min(1).max(100).default('default'),
  scopes: z.array(z.enum(API_KEY_SCOPES)).min(1).max(API_KEY_SCOPES.length).optional(),
  // The account's access token the key is minted with (the gateway's self-service route): the key is
  // capped at its scopes and bound to its grant (apps/auth/src/api-keys/mint-api-key.ts). Absent: an
  // administrator's key.
  access_token: z.string().min(1).max(8192).optional(),
});

const API_KEY_PAGE_MAX = 100;
/** `GET /internal/accounts/{id}/api-keys?page_size=…&start_after=…`: one page of the live keys, oldest first. */
export const internalApiKeyPage = z.object({
  page_size: z.coerce.number().int().min(1).max(API_KEY_PAGE_MAX),
  start_after: z.string().regex(INTERNAL_ID).optional(),
});
