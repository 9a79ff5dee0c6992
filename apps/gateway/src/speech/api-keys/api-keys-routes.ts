import express, { Router, type Request } from 'express';
import { SpeechError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { API_KEYS_SCOPE } from '@platform/oauth-resource';
import { readCredential } from '../../auth/credentials';
import { identityOf, requestCaller, type SpeechScope } from '../caller';
import { speechErrorHandler } from '../speech-errors';
import { ApiKeyLimitReached, MintRefused, UnknownAccount, type AuthApiKey, type AuthApiKeys } from './auth-api-keys';
import { isKeyId, parseKeyPage, parseNewApiKey } from './api-key-input';

export interface ApiKeysRouteDeps {
  keys: AuthApiKeys;
  /** This replica's API key cache: a revoked key is dropped at once (other replicas hear auth's notice). */
  forgetKey(keyId: string): void;
  logger: Logger;
}

/** The key as the speech API shows it: never the secret, except `key` in the creation answer. */
function keyBody(key: AuthApiKey) {
  return { key_id: key.id, name: key.name, scopes: key.scopes, hint: key.prefix, created_at: key.createdAt };
}

/**
 * Keys are managed with the account's OAuth access token (Bearer or DPoP), `speech:read` to list and
 * `speech:keys` to create or revoke (besides `speech:write`, which every change of the speech API
 * needs): `speech:write` alone is not consent to credentials that outlive the token. An API key is
 * refused: a key must not mint keys that outlive it.
 */
function ownerOf(req: Request, need: SpeechScope): string {
  // The kind of credential first: an API key holds no `speech:keys`, and "use an access token" is the answer that helps.
  const method = identityOf(req)?.method;
  if (method !== undefined && method !== 'anonymous' && method !== 'bearer_jwt' && method !== 'dpop_jwt') {
    throw new SpeechError(
      403,
      'unauthorized',
      'API keys are managed with an OAuth access token of the account; an API key cannot manage keys.',
    );
  }
  return requestCaller(req, need).sub;
}

/** The access token the request was authenticated with: auth mints the key from it (its scopes, its grant). */
function accessTokenOf(req: Request): string {
  const credential = readCredential(req.headers);
  if (credential.kind !== 'jwt')
    throw new SpeechError(403, 'unauthorized', 'API keys are managed with an OAuth access token of the account.');
  return credential.token;
}

/** `GET/POST /v1/api-keys`, `DELETE /v1/api-keys/{key_id}` (docs/speech.md "API keys"). */
export function apiKeysRoutes(deps: ApiKeysRouteDeps): Router {
  const router = Router();
  router.get('/api-keys', async (req, res) => {
    const accountId = ownerOf(req, 'speech:read');
    const { pageSize, startAfter } = parseKeyPage(req);
    const page = await deps.keys.list(accountId, pageSize, startAfter);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      api_keys: page.items.map(keyBody),
      has_more: page.next_start_after !== null,
      last_key_id: page.items.length > 0 ? page.items[page.items.length - 1]!.id : null,
    });
  });
  router.post('/api-keys', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    const accountId = ownerOf(req, API_KEYS_SCOPE);
    const input = parseNewApiKey(req.body);
    let created: AuthApiKey;
    try {
      // Auth caps the key at the token's speech scopes (403 past them) and records the token's client and grant.
      created = await deps.keys.create(accountId, { ...input, accessToken: accessTokenOf(req) });
    } catch (err) {
      if (err instanceof ApiKeyLimitReached) throw new SpeechError(400, 'bad_request', err.message);
      if (err instanceof MintRefused)
        throw new SpeechError(err.status, 'unauthorized', `${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`);
      if (err instanceof UnknownAccount)
        throw new SpeechError(403, 'unauthorized', 'This access token does not belong to an account.');
      throw err;
    }
    // The secret is in this answer only: auth keeps its hash.
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ ...keyBody(created), key: created.key });
  });
  router.delete('/api-keys/:keyId', async (req, res) => {
    const accountId = ownerOf(req, API_KEYS_SCOPE);
    const keyId = req.params.keyId;
    // Another account's key is answered as an unknown one: its existence is not revealed.
    if (!isKeyId(keyId) || !(await deps.keys.revoke(accountId, keyId)))
      throw new SpeechError(404, 'error', 'No such API key.');
    deps.forgetKey(keyId);
    res.status(204).end();
  });
  router.use(speechErrorHandler(deps.logger));
  return router;
}
