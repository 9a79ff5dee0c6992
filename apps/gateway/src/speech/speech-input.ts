import type { z } from 'zod/v4';
import { SpeechError, type SpeechErrorStatus } from '@platform/errors';

/** The statuses a contract's check may name instead of `bad_request` (its `params.status`), with their HTTP status. */
const NAMED_STATUSES = new Map<unknown, [number, SpeechErrorStatus]>([
  ['text_too_long', [400, 'text_too_long']],
  ['model_not_found', [400, 'model_not_found']],
  ['voice_not_found', [404, 'voice_not_found']],
]);

/**
 * A request's body, query or path parameter read with its contract (libs/contracts/src/speech), or the
 * speech error shape `{detail: {status, message}}`: 400 with the contract's own message for the first
 * problem. The status is `bad_request` unless the failed check names another in `params.status` (`text`
 * over the limit is `text_too_long`, an unknown model `model_not_found`, a voice id no voice can have
 * 404 `voice_not_found`). A problem with the value as a whole (not an object, an unknown
 * field) comes before its fields', as the speech API has always answered it.
 */
export function readSpeechInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { issues } = result.error;
  const issue = issues.find((i) => i.path.length === 0) ?? issues[0]!;
  const [httpStatus, status] = (issue.code === 'custom' && NAMED_STATUSES.get(issue.params?.status)) || [
    400,
    'bad_request',
  ];
  throw new SpeechError(httpStatus, status, issue.message);
}
