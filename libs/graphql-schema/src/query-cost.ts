import {
  getArgumentValues,
  getNamedType,
  GraphQLError,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { GraphQLErrorCode } from '@platform/errors';

/**
 * The query cost model, defined once: content prices every request with it before execution
 * (docs/content.md, "Limits and batching") and the gateway prices every subscription with it when
 * the client subscribes (docs/gateway.md), since each event runs the selection again.
 *
 * A field's price reflects the database work it causes:
 * - every field: `field` (1);
 * - a connection (`…Connection` type): `page` (5) for its page query, plus its `edges` priced
 *   once per item it may return (`first`/`last`, default 10, at least 1 even for `first: 0` since
 *   the page query runs anyway, at most 100);
 * - `totalCount`: `count` (10), a count over the filtered index range; priced once per connection,
 *   not per item;
 * - a text filter (`filter.search`, `search(query:)`): `textSearch` (50) for the page query and
 *   another `textSearch` for its `totalCount`: a case-insensitive substring match cannot use an
 *   index, so it walks the collection;
 * - a list with `limit` (`search`): its items priced `limit` times (default 10).
 * Introspection fields cost nothing.
 */
export const FIELD_COST = { field: 1, page: 5, count: 10, textSearch: 50 } as const;

/**
 * Breadth and depth, independent of the budget: at most `maxAliases` repeated selections (a field
 * selected again in the same selection set, under an alias or not, counted after fragments are
 * expanded; a plain rename costs nothing) and at most `maxDepth` nested fields. Repeats are what
 * multiply work without raising depth, and what makes validation's overlapping-fields check
 * quadratic, so they are capped before validation runs.
 */
export const QUERY_SHAPE_LIMITS = { maxDepth: 10, maxAliases: 30, maxPageSize: 100, defaultPageSize: 10 } as const;

export interface QueryMeasure {
  depth: number;
  cost: number;
  /** Repeated selections: a field selected again in the same selection set (aliased or not). */
  aliases: number;
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  visiting: Set<string>;
  aliases: number;
  /** Selection sets and fragments entered and not yet left; past MAX_NESTING the walk stops. */
  nesting: number;
  truncated: boolean;
}

/**
 * The walk runs before validation, on any document that parses, so it bounds its own recursion:
 * a document nested deeper than this (fields, inline fragments and spreads together) is reported
 * with this depth, which is over every limit, instead of being walked to the end.
 */
const MAX_NESTING = 64;

function isConnection(type: GraphQLNamedType): boolean {
  return isObjectType(type) && type.name.endsWith('Connection') && 'edges' in type.getFields();
}

function argumentsOf(
  definition: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  try {
    return getArgumentValues(definition, node, variables);
  } catch {
    // Invalid arguments fail validation or coercion with their own error; price the defaults.
    return {};
  }
}

function pageSize(value: unknown): number {
  const n =
    typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : QUERY_SHAPE_LIMITS.defaultPageSize;
  return Math.min(Math.max(n, 1), QUERY_SHAPE_LIMITS.maxPageSize);
}

function searchesText(args: Record<string, unknown>, fieldName: string, parentName: string): boolean {
  if (parentName === 'Query' && fieldName === 'search') return true;
  const filter = args.filter;
  if (typeof filter !== 'object' || filter === null) return false;
  const search = (filter as Record<string, unknown>).search;
  return typeof search === 'string' && search.length > 0;
}

/** One selection set under `parent`; `connection` says whether it is a connection's, and with a text filter. */
function measureSet(
  walk: Walk,
  set: SelectionSetNode | undefined,
  parent: GraphQLNamedType | undefined,
  connection: { items: number; textSearch: boolean } | null,
): { depth: number; cost: number } {
  if (!set) return { depth: 0, cost: 0 };
  const names = new Map<string, number>();
  const result = measureSelections(walk, set, parent, connection, names);
  for (const selections of names.values()) walk.aliases += selections - 1;
  return result;
}

function measureSelections(
  walk: Walk,
  set: SelectionSetNode,
  parent: GraphQLNamedType | undefined,
  connection: { items: number; textSearch: boolean } | null,
  names: Map<string, number>,
): { depth: number; cost: number } {
  if (walk.nesting >= MAX_NESTING) {
    walk.truncated = true;
    return { depth: 0, cost: 0 };
  }
  walk.nesting += 1;
  let depth = 0;
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      names.set(name, (names.get(name) ?? 0) + 1);
      if (name.startsWith('__')) {
        // Free, but its repeats count: validation compares every pair of same-named selections.
        measureSet(walk, selection.selectionSet, undefined, null);
        continue;
      }
      const definition = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
      const type = definition ? getNamedType(definition.type) : undefined;
      const args = definition ? argumentsOf(definition, selection, walk.variables) : {};
      const textSearch = parent ? searchesText(args, name, parent.name) : false;
      let own: number = FIELD_COST.field;
      let inner: { depth: number; cost: number };
      if (type && isConnection(type)) {
        own += FIELD_COST.page + (textSearch ? FIELD_COST.textSearch : 0);
        inner = measureSet(walk, selection.selectionSet, type, {
          items: pageSize(args.first ?? args.last),
          textSearch,
        });
      } else if (definition && definition.args.some((a) => a.name === 'limit')) {
        own += textSearch ? FIELD_COST.textSearch : 0;
        const child = measureSet(walk, selection.selectionSet, type, null);
        inner = { depth: child.depth, cost: pageSize(args.limit) * child.cost };
      } else {
        inner = measureSet(walk, selection.selectionSet, type, null);
      }
      if (connection && name === 'totalCount') own += connection.textSearch ? FIELD_COST.textSearch : FIELD_COST.count;
      if (connection && name === 'edges') inner = { depth: inner.depth, cost: connection.items * inner.cost };
      depth = Math.max(depth, 1 + inner.depth);
      cost += own + inner.cost;
      continue;
    }
    let inner: SelectionSetNode | undefined;
    let typeName: string | undefined;
    let spread: string | null = null;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      inner = selection.selectionSet;
      typeName = selection.typeCondition?.name.value;
    } else {
      spread = selection.name.value;
      if (walk.visiting.has(spread)) continue;
      const fragment = walk.fragments[spread];
      inner = fragment?.selectionSet;
      typeName = fragment?.typeCondition.name.value;
    }
    if (!inner) continue;
    if (spread) walk.visiting.add(spread);
    // Fields of a fragment join the enclosing selection set: their repeats are counted together.
    const measured = measureSelections(
      walk,
      inner,
      typeName ? (walk.schema.getType(typeName) ?? parent) : parent,
      connection,
      names,
    );
    if (spread) walk.visiting.delete(spread);
    depth = Math.max(depth, measured.depth);
    cost += measured.cost;
  }
  walk.nesting -= 1;
  return { depth, cost };
}

/**
 * Depth, cost and repeated selections of the document's costliest operation, with the variables it
 * will run with. Safe before validation: unknown fields cost 1, bad arguments are priced at their
 * defaults, fragment cycles are followed once.
 */
export function measureQuery(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> = {},
): QueryMeasure {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
  const worst: QueryMeasure = { depth: 0, cost: 0, aliases: 0 };
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const walk: Walk = { schema, fragments, variables, visiting: new Set(), aliases: 0, nesting: 0, truncated: false };
    const root =
      def.operation === 'query'
        ? schema.getQueryType()
        : def.operation === 'mutation'
          ? schema.getMutationType()
          : schema.getSubscriptionType();
    const { depth, cost } = measureSet(walk, def.selectionSet, root ?? undefined, null);
    worst.depth = Math.max(worst.depth, walk.truncated ? MAX_NESTING : depth);
    worst.cost = Math.max(worst.cost, cost);
    worst.aliases = Math.max(worst.aliases, walk.aliases);
  }
  return worst;
}

/**
 * The first limit a measured operation breaks, as the GraphQL error both services answer with:
 * `QUERY_TOO_DEEP` for depth, `QUERY_TOO_COMPLEX` for repeated selections and for cost over `maxCost`.
 */
export function queryLimitError(measure: QueryMeasure, maxCost: number): GraphQLError | null {
  const { maxDepth, maxAliases } = QUERY_SHAPE_LIMITS;
  if (measure.depth > maxDepth) {
    return new GraphQLError(`Query depth ${measure.depth} exceeds the maximum of ${maxDepth}`, {
      extensions: { code: GraphQLErrorCode.QUERY_TOO_DEEP, depth: measure.depth, maxDepth },
    });
  }
  if (measure.aliases > maxAliases) {
    return new GraphQLError(
      `Query selects fields again ${measure.aliases} times (aliases or repeats in one selection set); at most ${maxAliases} are allowed`,
      {
        extensions: { code: GraphQLErrorCode.QUERY_TOO_COMPLEX, aliases: measure.aliases, maxAliases },
      },
    );
  }
  if (measure.cost > maxCost) {
    return new GraphQLError(`Query cost ${measure.cost} exceeds the maximum of ${maxCost}`, {
      extensions: { code: GraphQLErrorCode.QUERY_TOO_COMPLEX, cost: measure.cost, maxCost },
    });
  }
  return null;
}
