import { randomBytes } from 'node:crypto';

/** A name no other test run uses, for databases, topics, queues and key prefixes. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}
