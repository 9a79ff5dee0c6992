/** RFC 6749 §5.2 error body plus the codes the other OAuth RFCs add. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'unsupported_token_type'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  // RFC 9101 §6.3 (request objects) and RFC 9126 §2.3 (pushed authorization requests).
  | 'invalid_request_object'
  | 'invalid_request_uri'
  // RFC 7591 §3.2.2 (dynamic client registration).
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_software_statement';

interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description: string;
}

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly httpStatus: number = defaultStatus(error),
    readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }

  toBody(): OAuthErrorBody {
    return { error: this.error, error_description: this.description };
  }
}

function defaultStatus(error: OAuthErrorCode): number {
  switch (error) {
    case 'invalid_client':
    case 'invalid_token':
      return 401;
    case 'insufficient_scope':
    case 'access_denied':
      return 403;
    case 'server_error':
      return 500;
    case 'temporarily_unavailable':
      return 503;
    default:
      return 400;
  }
}
