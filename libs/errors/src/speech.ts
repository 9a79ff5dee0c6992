/** The speech API's error body: `{detail: {status, message}}` with its status values (docs/speech.md). */
export type SpeechErrorStatus =
  | 'invalid_api_key'
  | 'unauthorized'
  | 'quota_exceeded'
  | 'character_limit_exceeded'
  | 'content_violation'
  | 'text_too_long'
  | 'voice_not_found'
  | 'model_not_found'
  | 'subscription_required'
  | 'too_many_requests'
  | 'bad_request'
  | 'error';

interface SpeechErrorBody {
  detail: { status: SpeechErrorStatus; message: string };
}

export class SpeechError extends Error {
  /** Seconds after which the request may succeed (the `Retry-After` header; WebSocket: close 1013). */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly httpStatus: number,
    readonly status: SpeechErrorStatus,
    message: string,
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'SpeechError';
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  toBody(): SpeechErrorBody {
    return speechErrorBody(this.status, this.message);
  }
}

export function speechErrorBody(status: SpeechErrorStatus, message: string): SpeechErrorBody {
  return { detail: { status, message } };
}
