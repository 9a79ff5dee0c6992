import { z } from 'zod/v4';
import type { SpeechErrorStatus, speechErrorBody as errorBodyOf } from '@platform/errors';
import type { ListsEvery } from './code-lists';

/**
 * Every `detail.status` of the speech API (docs/speech.md, "Every detail.status and its HTTP status").
 * The type check below fails the build when `@platform/errors` gains or loses a status that is not
 * listed here, so the document cannot drift from the code's list.
 */
export const SPEECH_ERROR_STATUSES = [
  'invalid_api_key',
  'unauthorized',
  'quota_exceeded',
  'character_limit_exceeded',
  'content_violation',
  'text_too_long',
  'voice_not_found',
  'model_not_found',
  'subscription_required',
  'too_many_requests',
  'bad_request',
  'error',
] as const satisfies readonly SpeechErrorStatus[];
const everyStatusListed: ListsEvery<SpeechErrorStatus, typeof SPEECH_ERROR_STATUSES> = true;
void everyStatusListed;

/** `{detail: {status, message}}`: every error of the speech interface, HTTP and WebSocket alike. */
export const speechErrorBody = z
  .looseObject({
    detail: z.looseObject({ status: z.enum(SPEECH_ERROR_STATUSES), message: z.string() }),
  })
  .meta({
    description: 'The speech API error body. `detail.status` is machine-readable, `detail.message` is for people.',
  });
export type SpeechErrorBody = z.output<typeof speechErrorBody>;

/** The build fails when the body the apps build (`speechErrorBody` of `@platform/errors`) stops being this one. */
type Declared = { detail: Pick<SpeechErrorBody['detail'], 'status' | 'message'> };
const builtIsDeclared: [ReturnType<typeof errorBodyOf>] extends [Declared] ? true : never = true;
void builtIsDeclared;

/** `{status: "ok"}`, the answer of the speech API's changes that return nothing else. */
export const statusOk = z.looseObject({ status: z.literal('ok') });
export type StatusOk = z.output<typeof statusOk>;
