import type { OAuthErrorCode } from '@platform/contracts';

/** RFC 6749 §5.2 error body plus the codes the other OAuth RFCs add (libs/contracts, which the document lists). */
export type { OAuthErrorCode };

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
