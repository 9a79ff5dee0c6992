import type { z } from 'zod/v4';
import { SpeechError, type SpeechErrorStatus } from '@platform/errors';

/** The statuses a contract's check may name instead of `bad_request` (its `params.status`). */
const NAMED_STATUSES: readonly SpeechErrorStatus[] = ['text_too_long', 'model_not_found'];

/**
 * A request's body or query read with its contract (libs/contracts/src/speech), or the speech error
 * shape `{detail: {status, message}}`: 400 with the contract's own message for the first problem.
 * The status is `bad_request` unless the failed check names another in `params.status` (`text` over
 * the limit is `text_too_long`, an unknown model `model_not_found`). A problem with the value as a whole (not an object, an unknown
 * field) comes before its fields', as the speech API has always answered it.
 */
export function readSpeechInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { issues } = result.error;
  const issue = issues.find((i) => i.path.length === 0) ?? issues[0]!;
  const named = issue.code === 'custom' ? NAMED_STATUSES.find((s) => s === issue.params?.status) : undefined;
  throw new SpeechError(400, named ?? 'bad_request', issue.message);
}
