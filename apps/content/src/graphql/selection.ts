import { collectSubFields } from '@graphql-tools/utils';
import {
  getNamedType,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';

/**
 * Answers about a field's selection, remembered across requests. The executor builds new field node
 * lists for every request, but the nodes in them are those of the parsed document Apollo keeps, so a
 * field node is the key. The answer depends on the variables only through @skip/@include: they are
 * part of the key only when the node's selection (fragments included) has such a directive with a
 * variable. Bounded per node: a few distinct variable sets are remembered, the rest computed each time.
 */
const remembered = new WeakMap<FieldNode, { variableDirectives: boolean; answers: Map<string, unknown> }>();
const ANSWERS_PER_NODE = 32;

function memo<T>(info: GraphQLResolveInfo, question: string, compute: () => T): T {
  if (info.fieldNodes.length !== 1) return compute();
  const node = info.fieldNodes[0]!;
  let entry = remembered.get(node);
  if (!entry) {
    entry = { variableDirectives: hasVariableDirectives(node.selectionSet, info, new Set()), answers: new Map() };
    remembered.set(node, entry);
  }
  // The return type too: a field selected in a fragment on an interface may be resolved on several types.
  const key = `${question}|${String(info.returnType)}${entry.variableDirectives ? `|${JSON.stringify(info.variableValues)}` : ''}`;
  if (entry.answers.has(key)) return entry.answers.get(key) as T;
  const answer = compute();
  if (entry.answers.size < ANSWERS_PER_NODE) entry.answers.set(key, answer);
  return answer;
}

/** Whether a selection (its fragments followed) has @skip or @include whose argument is a variable. */
function hasVariableDirectives(
  selectionSet: SelectionSetNode | undefined,
  info: GraphQLResolveInfo,
  seen: Set<string>,
): boolean {
  for (const selection of selectionSet?.selections ?? []) {
    if (
      selection.directives?.some(
        (d) =>
          (d.name.value === 'skip' || d.name.value === 'include') &&
          d.arguments?.some((a) => a.value.kind === Kind.VARIABLE),
      )
    )
      return true;
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      if (seen.has(name)) continue;
      seen.add(name);
      if (hasVariableDirectives(info.fragments[name]?.selectionSet, info, seen)) return true;
    } else if (hasVariableDirectives(selection.selectionSet, info, seen)) {
      return true;
    }
  }
  return false;
}

/**
 * Whether the operation selects `name` directly under the field being resolved — through aliases,
 * inline fragments and named fragment spreads, honouring @skip/@include with the request's variables
 * (graphql-tools' collectSubFields, the executor's own algorithm, memoised per field node list).
 * When the answer cannot be known (the field's type is abstract) it says yes: selecting too much only
 * costs a read, selecting too little would drop data.
 */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const type = getNamedType(info.returnType);
  if (!isObjectType(type)) return true;
  // The executor's own array (not a copy), so collectSubFields' memo is shared by every item of a list.
  return memo(info, `field:${name}`, () => subFieldNodes(info, type, info.fieldNodes as FieldNode[], name).length > 0);
}

/** The FieldNodes of the sub-field `name` of `type` as selected by `fieldNodes` (all aliases). */
function subFieldNodes(
  info: GraphQLResolveInfo,
  type: GraphQLObjectType,
  fieldNodes: FieldNode[],
  name: string,
): FieldNode[] {
  const { fields, patches } = collectSubFields(info.schema, info.fragments, info.variableValues, type, fieldNodes);
  return [fields, ...patches.map((patch) => patch.fields)].flatMap((group) =>
    [...group.values()].flat().filter((node) => node.name.value === name),
  );
}

/** The object type of `type`'s field `name`, if it is one. */
function objectFieldType(type: GraphQLObjectType, name: string): GraphQLObjectType | null {
  const field = type.getFields()[name];
  const named = field ? getNamedType(field.type) : null;
  return named && isObjectType(named) ? named : null;
}

/**
 * The names of the fields selected on a connection's nodes (`edges { node { … } }`), through aliases,
 * fragments and @skip/@include, or null when they cannot be known (a type on the way is abstract).
 * For reading only what a list's selection needs, and for keying cached lists by that selection.
 * Remembered (`memo`): the cache wrapper and the resolver ask for the same field, and so does every
 * request of the same operation.
 */
export function selectedNodeFields(info: GraphQLResolveInfo): ReadonlySet<string> | null {
  return memo(info, 'node-fields', () => nodeFields(info));
}

function nodeFields(info: GraphQLResolveInfo): ReadonlySet<string> | null {
  let names: ReadonlySet<string> | null = null;
  const connection = getNamedType(info.returnType);
  const edge = isObjectType(connection) ? objectFieldType(connection, 'edges') : null;
  const node = edge ? objectFieldType(edge, 'node') : null;
  if (isObjectType(connection) && edge && node) {
    const edgesNodes = subFieldNodes(info, connection, info.fieldNodes as FieldNode[], 'edges');
    const nodeNodes = edgesNodes.length > 0 ? subFieldNodes(info, edge, edgesNodes, 'node') : [];
    const selected = new Set<string>();
    if (nodeNodes.length > 0) {
      const { fields, patches } = collectSubFields(info.schema, info.fragments, info.variableValues, node, nodeNodes);
      for (const group of [fields, ...patches.map((patch) => patch.fields)])
        for (const nodes of group.values()) for (const n of nodes) selected.add(n.name.value);
    }
    names = selected;
  }
  return names;
}

/**
 * Whether a connection's selection reads a cursor (`edges { cursor }` or `pageInfo { startCursor
 * endCursor }`): sealing one costs an encryption per edge, which a list that never pages needs none of.
 * True when it cannot be known.
 */
export function selectsCursors(info: GraphQLResolveInfo): boolean {
  return memo(info, 'cursors', () => cursorsSelected(info));
}

function cursorsSelected(info: GraphQLResolveInfo): boolean {
  const connection = getNamedType(info.returnType);
  const edge = isObjectType(connection) ? objectFieldType(connection, 'edges') : null;
  const pageInfo = isObjectType(connection) ? objectFieldType(connection, 'pageInfo') : null;
  if (!isObjectType(connection) || !edge || !pageInfo) return true;
  const fieldNodes = info.fieldNodes as FieldNode[];
  const edges = subFieldNodes(info, connection, fieldNodes, 'edges');
  if (edges.length > 0 && subFieldNodes(info, edge, edges, 'cursor').length > 0) return true;
  const pages = subFieldNodes(info, connection, fieldNodes, 'pageInfo');
  return (
    pages.length > 0 &&
    (subFieldNodes(info, pageInfo, pages, 'startCursor').length > 0 ||
      subFieldNodes(info, pageInfo, pages, 'endCursor').length > 0)
  );
}
