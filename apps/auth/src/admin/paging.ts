import { adminPageQuery } from '@platform/contracts';
import { invalidInput } from './admin-errors';

export interface PageRequest {
  limit: number;
  /** The key after which this page starts. */
  after?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export function parsePage(query: Record<string, unknown>): PageRequest {
  // A repeated parameter arrives as an array and fails the schema (400), never picks one of its values.
  const parsed = adminPageQuery.safeParse({
    limit: Array.isArray(query.limit) ? Number.NaN : query.limit,
    cursor: query.cursor,
  });
  if (!parsed.success) throw invalidInput(parsed.error);
  const after =
    parsed.data.cursor === undefined ? undefined : Buffer.from(parsed.data.cursor, 'base64url').toString('utf8');
  return { limit: parsed.data.limit, ...(after ? { after } : {}) };
}

/** From `limit + 1` rows read in key order: the page and the cursor of the next one. */
export function toPage<D, T>(rows: D[], limit: number, keyOf: (row: D) => string, view: (row: D) => T): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(view),
    next_cursor:
      rows.length > limit && last !== undefined ? Buffer.from(keyOf(last), 'utf8').toString('base64url') : null,
  };
}
