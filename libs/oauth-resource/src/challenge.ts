/** Errors a resource server answers with (RFC 6750 §3.1, RFC 9449 §7.1). */
export type ResourceErrorCode =
  'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce';

export interface ChallengeInput {
  scheme: 'Bearer' | 'DPoP';
  realm?: string;
  /** Absent when the request carried no credentials at all (RFC 6750 §3.1: no error code then). */
  error?: ResourceErrorCode;
  description?: string;
  /** Scopes the resource needs, for `insufficient_scope`. */
  scope?: string;
  /** DPoP: algorithms accepted for proofs. */
  algs?: readonly string[];
}

function quote(value: string): string {
  // RFC 7235 quoted-string; descriptions are ours, but strip what would break the header anyway.
  return `"${value.replace(/[\\"]/g, '').replace(/[^\x20-\x7E]/g, '')}"`;
}

/** One `WWW-Authenticate` challenge, e.g. `Bearer realm="api", error="invalid_token", error_description="expired"`. */
export function buildChallenge(input: ChallengeInput): string {
  const params: string[] = [];
  if (input.realm) params.push(`realm=${quote(input.realm)}`);
  if (input.scheme === 'DPoP' && input.algs?.length) params.push(`algs=${quote(input.algs.join(' '))}`);
  if (input.error) params.push(`error=${quote(input.error)}`);
  if (input.error && input.description) params.push(`error_description=${quote(input.description)}`);
  if (input.scope) params.push(`scope=${quote(input.scope)}`);
  return params.length ? `${input.scheme} ${params.join(', ')}` : input.scheme;
}

/**
 * A failed resource request: `status` (401, or 403 for `insufficient_scope`, 400 for malformed
 * requests), the OAuth `error` code, and the headers to send (`WWW-Authenticate`, maybe `DPoP-Nonce`).
 */
export class ResourceAuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 403,
    readonly error: ResourceErrorCode | 'missing_token',
    readonly description: string,
    readonly headers: Record<string, string>,
  ) {
    super(`${error}: ${description}`);
    this.name = 'ResourceAuthError';
  }

  get wwwAuthenticate(): string {
    return this.headers['WWW-Authenticate'] ?? '';
  }

  toBody(): { error: string; error_description: string } {
    return {
      error: this.error === 'missing_token' ? 'invalid_token' : this.error,
      error_description: this.description,
    };
  }
}
