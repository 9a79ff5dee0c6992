import {
  GraphQLError,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { GraphQLErrorCode } from '@platform/errors';

/**
 * Query depth and cost limits, checked after parsing and before execution (with the request's variables). Depth counts nested selections
 * (introspection fields are not counted). Cost: every field costs 1; the selection under a
 * field that returns a page (`first`, `last` or `limit` argument, default 10 for connections)
 * is multiplied by that page size, so `posts(first: 100) { edges { node { comments(first: 100) … } } }`
 * is priced for the 10 000 comments it could return.
 */
export const MAX_DEPTH = 10;
export const MAX_COST = 5000;
const MAX_PAGE_SIZE = 100;
const PAGED_FIELDS: ReadonlySet<string> = new Set(['users', 'posts', 'comments', 'replies', 'search']);

function intArg(field: FieldNode, names: string[], variables: Record<string, unknown>): number | null {
  for (const arg of field.arguments ?? []) {
    if (!names.includes(arg.name.value)) continue;
    const value: ValueNode = arg.value;
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind === Kind.VARIABLE) {
      const v = variables[value.name.value];
      if (typeof v === 'number') return v;
    }
  }
  return null;
}

interface Measure {
  depth: number;
  cost: number;
}

function measure(
  selectionSet: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  visiting: Set<string>,
): Measure {
  if (!selectionSet) return { depth: 0, cost: 0 };
  let depth = 0;
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__')) continue;
      const inner = measure(selection.selectionSet, fragments, variables, visiting);
      const page = intArg(selection, ['first', 'last', 'limit'], variables) ?? (PAGED_FIELDS.has(selection.name.value) ? 10 : 1);
      depth = Math.max(depth, 1 + inner.depth);
      // Page sizes above the maximum are rejected by @validate with a clearer message; price them at the maximum.
      cost += 1 + Math.min(Math.max(page, 1), MAX_PAGE_SIZE) * inner.cost;
    } else {
      const set =
        selection.kind === Kind.INLINE_FRAGMENT
          ? selection.selectionSet
          : visiting.has(selection.name.value)
            ? undefined
            : fragments[selection.name.value]?.selectionSet;
      const name = selection.kind === Kind.FRAGMENT_SPREAD ? selection.name.value : null;
      if (name) visiting.add(name);
      const inner = measure(set, fragments, variables, visiting);
      if (name) visiting.delete(name);
      depth = Math.max(depth, inner.depth);
      cost += inner.cost;
    }
  }
  return { depth, cost };
}

/** Returns the first limit the operation breaks, with the variables it will run with. */
export function checkLimits(document: DocumentNode, variables: Record<string, unknown> = {}): GraphQLError | null {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const { depth, cost } = measure(def.selectionSet, fragments, variables, new Set());
    if (depth > MAX_DEPTH) {
      return new GraphQLError(`Query depth ${depth} exceeds the maximum of ${MAX_DEPTH}`, {
        extensions: { code: GraphQLErrorCode.QUERY_TOO_DEEP, depth, maxDepth: MAX_DEPTH, http: { status: 400 } },
      });
    }
    if (cost > MAX_COST) {
      return new GraphQLError(`Query cost ${cost} exceeds the maximum of ${MAX_COST}`, {
        extensions: { code: GraphQLErrorCode.QUERY_TOO_COMPLEX, cost, maxCost: MAX_COST, http: { status: 400 } },
      });
    }
  }
  return null;
}
