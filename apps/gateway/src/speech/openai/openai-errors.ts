import type { Response } from 'express';
import type { z } from 'zod/v4';
import { openAiError, type OpenAiErrorBody } from '@platform/contracts';
import { SpeechError, type SpeechErrorStatus } from '@platform/errors';

/** A refusal of OpenAI's request contract, with OpenAI's own `code` and the field at fault (`param`). */
export class OpenAiRequestError extends SpeechError {
  constructor(
    readonly code: string,
    readonly param: string | null,
    message: string,
  ) {
    super(400, 'bad_request', message);
  }
}

/** The field a speech error is about, where its status names one. */
const PARAM_OF: Partial<Record<SpeechErrorStatus, string>> = {
  voice_not_found: 'voice',
  model_not_found: 'model',
  text_too_long: 'input',
  subscription_required: 'response_format',
};

/** Speech statuses under OpenAI's names where they have one; `error` (a failure of ours) has no code. */
const CODE_OF: Partial<Record<SpeechErrorStatus, string | null>> = {
  too_many_requests: 'rate_limit_exceeded',
  error: null,
};

/**
 * Any error of the synthesis path in OpenAI's shape `{error: {message, type, code, param}}`: the
 * same HTTP status as the speech API answers (404 for an unknown voice, 429 and 503 with
 * `Retry-After`), the speech status as `code`.
 */
export function openAiBodyOf(err: SpeechError): OpenAiErrorBody {
  if (err instanceof OpenAiRequestError) return openAiError(err.httpStatus, err.message, err.code, err.param);
  const code = err.status in CODE_OF ? CODE_OF[err.status]! : err.status;
  return openAiError(err.httpStatus, err.message, code, PARAM_OF[err.status] ?? null);
}

export function sendOpenAiError(res: Response, err: SpeechError): void {
  if (res.headersSent) {
    // Audio already flowing: the only honest signal left is an incomplete response.
    res.destroy();
    return;
  }
  if (err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  res.status(err.httpStatus).json(openAiBodyOf(err));
}

/**
 * A request read with its contract (libs/contracts/src/speech/openai-speech.ts), or 400
 * `invalid_request_error` for its first problem: `param` the field, `code` the check's own
 * (`params.code`) or `invalid_value`. A problem with the body as a whole comes first.
 */
export function readOpenAiInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { issues } = result.error;
  const issue = issues.find((i) => i.path.length === 0) ?? issues[0]!;
  const named = issue.code === 'custom' ? issue.params?.code : undefined;
  const code = typeof named === 'string' ? named : 'invalid_value';
  const param = issue.path.length > 0 ? String(issue.path[0]) : null;
  throw new OpenAiRequestError(code, param, issue.message);
}
