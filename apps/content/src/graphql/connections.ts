import type { FilterQuery, Model } from 'mongoose';
import { countAll } from '../models/count';
import type { CursorCodec } from './cursors';
import { badInput } from './graphql-errors';

/**
 * Relay connections with keyset pagination: the cursor holds the sort key of an item (its sort
 * field value and `_id`), so pages stay gap- and repeat-free while items are added or removed,
 * and cost the same on page 1 and page 1000. Cursors are opaque: the sort key is sealed
 * (cursors.ts), so a cursor reveals nothing of the item, and one not sealed by the service for the
 * same sort field is refused as malformed.
 */
const DEFAULT_PAGE = 10;
const MAX_PAGE = 100;

export interface SortSpec {
  field: string;
  direction: 1 | -1;
}

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

interface Edge<T> {
  node: T;
  cursor: string;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number | (() => Promise<number>);
}

type KeyValue = string | number | boolean | null | { d: number };

function keyValue(value: unknown): KeyValue {
  if (value instanceof Date) return { d: value.getTime() };
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null)
    return value;
  if (value === undefined) return null;
  // Dates that went through a JSON cache come back as ISO strings.
  return String(value);
}

function queryValue(value: KeyValue): unknown {
  return typeof value === 'object' && value !== null ? new Date(value.d) : value;
}

export function encodeCursor(codec: CursorCodec, sort: SortSpec, doc: Record<string, unknown>): string {
  const raw = doc[sort.field];
  const value =
    sort.field.endsWith('At') || sort.field.endsWith('Sort')
      ? { d: new Date(raw as string | Date).getTime() }
      : keyValue(raw);
  return codec.seal(JSON.stringify([value, doc._id]), sort.field);
}

export function decodeCursor(
  codec: CursorCodec,
  cursor: string,
  sort: SortSpec,
  argName: string,
): { value: unknown; id: string | number } {
  const fail = () =>
    badInput(`${argName}: malformed cursor`, [
      { field: argName, message: 'Malformed cursor', code: 'VALIDATION_ERROR' },
    ]);
  const plaintext = codec.open(cursor, sort.field);
  if (plaintext === null) throw fail();
  let parsed: unknown;
  try {
    parsed = JSON.parse(plaintext);
  } catch {
    throw fail();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw fail();
  const [value, id] = parsed as [unknown, unknown];
  const okValue =
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as { d?: unknown }).d === 'number' &&
      Object.keys(value).length === 1);
  if (!okValue || (typeof id !== 'string' && typeof id !== 'number')) throw fail();
  return { value: queryValue(value as KeyValue), id };
}

/**
 * Items strictly after (forward) or before (backward) the cursor position in `sort` order:
 * `field ≥ v` (or `≤`) minus the items at `v` up to the cursor's `_id`. Written as a range on the
 * sort field plus a negation, not as the equivalent `$or`, so the planner always reads the order's
 * index from `v` on, and never turns the two `$or` branches into separately indexed scans whose
 * union then has to be sorted in memory.
 */
function beyond(
  sort: SortSpec,
  position: { value: unknown; id: string | number },
  forward: boolean,
): FilterQuery<unknown> {
  const ascending = (sort.direction === 1) === forward;
  if (sort.field === '_id') return { _id: { [ascending ? '$gt' : '$lt']: position.id } };
  return {
    [sort.field]: { [ascending ? '$gte' : '$lte']: position.value },
    $nor: [{ [sort.field]: position.value, _id: { [ascending ? '$lte' : '$gte']: position.id } }],
  };
}

/** The connection of a list the caller can see nothing of (no query). */
export function emptyConnection<T>(): Connection<T> {
  return {
    edges: [],
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    totalCount: 0,
  };
}

function pageSize(value: number | null | undefined, name: string): number {
  if (value === null || value === undefined) return DEFAULT_PAGE;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PAGE) {
    throw badInput(`${name}: must be between 0 and ${MAX_PAGE}`, [
      { field: name, message: `Must be between 0 and ${MAX_PAGE}`, code: 'VALIDATION_ERROR' },
    ]);
  }
  return value;
}

/**
 * One page of `model` under `filter`. `lazyCount` skips the count that otherwise runs beside the page
 * query: `totalCount` is then a function the default resolver calls only if the client selected it.
 * Resolvers pass `lazyCount: !selectsField(info, 'totalCount')`, so the count runs (in parallel with
 * the page) exactly when it is asked for. A cached connection cannot hold the function; @cache handles
 * that (see apply-directives).
 */
export async function paginate<T extends { _id: string | number }>(
  model: Model<T>,
  filter: FilterQuery<T>,
  sort: SortSpec,
  args: PageArgs,
  options: { cursors: CursorCodec; projection?: Record<string, 0 | 1>; lazyCount?: boolean; sealCursors?: boolean },
): Promise<Connection<T>> {
  const backward =
    (args.last !== undefined && args.last !== null) || (args.before !== undefined && args.before !== null);
  if (backward && ((args.first ?? null) !== null || (args.after ?? null) !== null)) {
    throw badInput('Use either first/after or last/before, not both', [
      { field: 'first', message: 'Cannot be combined with last/before', code: 'VALIDATION_ERROR' },
    ]);
  }
  const size = backward ? pageSize(args.last, 'last') : pageSize(args.first, 'first');
  const cursorArg = backward ? args.before : args.after;
  const position = cursorArg ? decodeCursor(options.cursors, cursorArg, sort, backward ? 'before' : 'after') : null;
  const pageFilter: FilterQuery<T> = position
    ? ({ $and: [filter, beyond(sort, position, !backward)] } as FilterQuery<T>)
    : filter;
  const direction = backward ? -sort.direction : sort.direction;
  const mongoSort: Record<string, 1 | -1> =
    sort.field === '_id'
      ? { _id: direction as 1 | -1 }
      : { [sort.field]: direction as 1 | -1, _id: direction as 1 | -1 };
  const [rows, count, hasOtherSide] = await Promise.all([
    size === 0
      ? Promise.resolve([] as T[])
      : model
          .find(pageFilter, options.projection)
          .sort(mongoSort)
          .limit(size + 1)
          .lean<T[]>(),
    options.lazyCount ? Promise.resolve(null) : countAll(model, filter),
    position
      ? model.exists({ $and: [filter, beyond(sort, position, backward)] } as FilterQuery<T>).then((x) => x !== null)
      : Promise.resolve(false),
  ]);
  const hasMore = rows.length > size;
  const items = rows.slice(0, size);
  if (backward) items.reverse();
  // Cursors not selected are not sealed (`sealCursors: false`); the empty string is then never read.
  const seal = options.sealCursors ?? true;
  const edges = items.map((node) => ({
    node,
    cursor: seal ? encodeCursor(options.cursors, sort, node as unknown as Record<string, unknown>) : '',
  }));
  return {
    edges,
    pageInfo: {
      hasNextPage: backward ? hasOtherSide : hasMore,
      hasPreviousPage: backward ? hasMore : hasOtherSide,
      startCursor: seal ? (edges[0]?.cursor ?? null) : null,
      endCursor: seal ? (edges[edges.length - 1]?.cursor ?? null) : null,
    },
    totalCount: count ?? (() => countAll(model, filter)),
  };
}
