import type { Request } from 'express';
import { SpeechError } from '@platform/errors';
import type { Identity } from '@platform/identity';
import type { API_KEYS_SCOPE } from '@platform/oauth-resource';

/** `speech:keys`: creating and revoking API keys, with an access token only (speech/api-keys). */
export type SpeechScope = 'speech:read' | 'speech:write' | typeof API_KEYS_SCOPE;

/** An account calling the speech API: synthesis, voices, history and user data all belong to one. */
export type SpeechCaller = Identity & { sub: string };

/** The identity the gateway's authentication set on the request (`req.identity`). */
export function identityOf(req: Request): Identity | undefined {
  return (req as Request & { identity?: Identity }).identity;
}

/**
 * The caller of a speech endpoint, over HTTP or WebSocket: anonymous callers get 401, callers
 * without the scope 403 (`speech:read` to read, `speech:write` to synthesise or change; a key
 * holds both unless it was made for one).
 */
export function callerOf(identity: Identity | undefined, need: SpeechScope): SpeechCaller {
  if (!identity?.sub) throw new SpeechError(401, 'unauthorized', 'An API key is required for this endpoint.');
  if (!identity.scope.split(' ').includes(need))
    throw new SpeechError(403, 'unauthorized', `This endpoint needs the scope ${need}.`);
  return identity as SpeechCaller;
}

/** `callerOf` for an HTTP request. */
export function requestCaller(req: Request, need: SpeechScope): SpeechCaller {
  return callerOf(identityOf(req), need);
}
