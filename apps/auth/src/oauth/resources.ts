import { OAuthError } from './oauth-error';
import type { ClientDoc } from '../clients/client-model';

/** RFC 8707: absolute URIs without fragment. */
function validResource(value: string): boolean {
  try {
    const url = new URL(value);
    return url.hash === '' && (url.protocol === 'https:' || url.protocol === 'http:');
  } catch {
    return false;
  }
}

/**
 * The token's `aud`: the requested resources when the client may use them all (`invalid_target`
 * otherwise), or the platform (PUBLIC_URL) / the client's first resource when none is requested.
 */
export function audienceFor(client: Pick<ClientDoc, 'resources'>, requested: string[], publicUrl: string): string[] {
  for (const r of requested) {
    if (!validResource(r)) throw new OAuthError('invalid_target', `resource ${r} is not an absolute URI`);
    if (!client.resources.includes(r))
      throw new OAuthError('invalid_target', `resource ${r} is not allowed for this client`);
  }
  if (requested.length) return [...new Set(requested)];
  return client.resources.includes(publicUrl) ? [publicUrl] : client.resources.slice(0, 1);
}

/** Requested scopes must all be allowed; no request means every scope the client may have. */
export function scopesFor(allowed: string[], requested: string[] | undefined): string[] {
  if (requested === undefined) return [...allowed];
  const notAllowed = requested.filter((s) => !allowed.includes(s));
  if (notAllowed.length) throw new OAuthError('invalid_scope', `scope ${notAllowed.join(' ')} is not allowed`);
  return requested;
}

/** Down-scoping: a subset of what was granted before. */
export function narrowTo(granted: string[], requested: string[] | undefined): string[] {
  if (requested === undefined) return granted;
  const extra = requested.filter((s) => !granted.includes(s));
  if (extra.length) throw new OAuthError('invalid_scope', `scope ${extra.join(' ')} exceeds the original grant`);
  return requested;
}

export function narrowAudience(granted: string[], requested: string[]): string[] {
  const extra = requested.filter((r) => !granted.includes(r));
  if (extra.length) throw new OAuthError('invalid_target', `resource ${extra.join(' ')} exceeds the original grant`);
  return requested.length ? requested : granted;
}
