import type { IncomingMessage } from 'node:http';
import type { Model } from 'mongoose';
import { randomToken, safeEqual, sha256 } from '../crypto/secrets';
import { OAuthError } from '../oauth/oauth-error';
import type { RegistrationDoc } from './registration-model';

/** A 401 of RFC 6750 §3.1 from the registration endpoints (RFC 7591 §3, RFC 7592 §2). */
export function invalidRegistrationToken(description: string): OAuthError {
  return new OAuthError('invalid_token', description, 401, {
    'WWW-Authenticate': `Bearer realm="registration", error="invalid_token", error_description="${description}"`,
  });
}

/** The Bearer token of the request (RFC 6750 §2.1), or undefined. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9._~+/-]{1,512}=*)$/i.exec(header) : null;
  return match?.[1];
}

/** A new registration access token (returned once) and what is stored of it. */
export function newRegistrationToken(): { token: string; hash: string } {
  const token = randomToken('rat_');
  return { token, hash: sha256(token) };
}

/**
 * The registration of `clientId` when the request carries its registration access token (RFC 7592 §3).
 * Unknown client and wrong token get the same answer, and the hashes are compared in constant time
 * either way, so the endpoint tells nobody which client ids exist.
 */
export async function authorizeRegistration(
  model: Model<RegistrationDoc>,
  req: IncomingMessage,
  clientId: string,
): Promise<RegistrationDoc> {
  const token = bearerToken(req);
  if (!token) throw invalidRegistrationToken('the registration access token is required');
  const registration = clientId.length <= 128 ? await model.findById(clientId).lean<RegistrationDoc>() : null;
  const ok = safeEqual(sha256(token), registration?.tokenHash ?? sha256('no-such-registration'));
  if (!registration || !ok) throw invalidRegistrationToken('the registration access token is invalid');
  return registration;
}

/**
 * Replaces the registration access token, only if it is still the one just checked: of two requests
 * made with one token at once, one rotates it and the other is refused, so a token is never used twice.
 */
export async function rotateRegistrationToken(
  model: Model<RegistrationDoc>,
  registration: RegistrationDoc,
): Promise<string> {
  const next = newRegistrationToken();
  const swapped = await model.updateOne(
    { _id: registration._id, tokenHash: registration.tokenHash },
    { $set: { tokenHash: next.hash } },
  );
  if (swapped.modifiedCount !== 1) throw invalidRegistrationToken('the registration access token is invalid');
  return next.token;
}
