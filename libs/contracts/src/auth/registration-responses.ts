import { z } from 'zod/v4';

// What dynamic client registration (RFC 7591, RFC 7592) and the administration API's initial access tokens
// answer, for the auth API document.

/** What the server issues beside the registered metadata (RFC 7591 §3.2.1, RFC 7592 §3). */
export const issuedClientCredentials = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int().min(0),
  client_secret: z
    .string()
    .optional()
    .meta({ description: 'At registration only, for a client that has a secret; never repeated.' }),
  client_secret_expires_at: z
    .literal(0)
    .optional()
    .meta({ type: 'integer', description: 'Present when the client has a secret: it does not expire.' }),
  registration_access_token: z.string().meta({
    description: 'For the client configuration endpoint; replaced in every answer (the one used stops working).',
  }),
  registration_client_uri: z.string().meta({ format: 'uri' }),
});

/** `POST /admin/registration-tokens`: an initial access token for `POST /register` (RFC 7591 §3). */
export const initialAccessToken = z.object({
  id: z.string().meta({ description: 'For `DELETE /admin/registration-tokens/{id}`; not the token.' }),
  initial_access_token: z.string().meta({ description: 'Shown this once; only its hash is stored.' }),
  expires_at: z.string().meta({ format: 'date-time' }),
  max_uses: z.number().int().min(1).nullable(),
});

export const deletedInitialAccessToken = z.object({ id: z.string(), deleted: z.literal(true) });
