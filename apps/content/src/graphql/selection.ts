import { collectSubFields } from '@graphql-tools/utils';
import { getNamedType, isObjectType, type FieldNode, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';

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
  return subFieldNodes(info, type, info.fieldNodes as FieldNode[], name).length > 0;
}

/** The FieldNodes of the sub-field `name` of `type` as selected by `fieldNodes` (all aliases). */
function subFieldNodes(info: GraphQLResolveInfo, type: GraphQLObjectType, fieldNodes: FieldNode[], name: string): FieldNode[] {
  const { fields, patches } = collectSubFields(info.schema, info.fragments, info.variableValues, type, fieldNodes);
  return [fields, ...patches.map((patch) => patch.fields)].flatMap((group) => [...group.values()].flat().filter((node) => node.name.value === name));
}

/** The object type of `type`'s field `name`, if it is one. */
function objectFieldType(type: GraphQLObjectType, name: string): GraphQLObjectType | null {
  const field = type.getFields()[name];
  const named = field ? getNamedType(field.type) : null;
  return named && isObjectType(named) ? named : null;
}

const nodeFieldMemo = new WeakMap<readonly FieldNode[], ReadonlySet<string> | null>();

/**
 * The names of the fields selected on a connection's nodes (`edges { node { … } }`), through aliases,
 * fragments and @skip/@include, or null when they cannot be known (a type on the way is abstract).
 * For reading only what a list's selection needs, and for keying cached lists by that selection.
 * Memoised per field node list: the cache wrapper and the resolver ask for the same field.
 */
export function selectedNodeFields(info: GraphQLResolveInfo): ReadonlySet<string> | null {
  if (nodeFieldMemo.has(info.fieldNodes)) return nodeFieldMemo.get(info.fieldNodes)!;
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
      for (const group of [fields, ...patches.map((patch) => patch.fields)]) for (const nodes of group.values()) for (const n of nodes) selected.add(n.name.value);
    }
    names = selected;
  }
  nodeFieldMemo.set(info.fieldNodes, names);
  return names;
}

/**
 * Whether a connection's selection reads a cursor (`edges { cursor }` or `pageInfo { startCursor
 * endCursor }`): sealing one costs an encryption per edge, which a list that never pages needs none of.
 * True when it cannot be known.
 */
export function selectsCursors(info: GraphQLResolveInfo): boolean {
  const connection = getNamedType(info.returnType);
  const edge = isObjectType(connection) ? objectFieldType(connection, 'edges') : null;
  const pageInfo = isObjectType(connection) ? objectFieldType(connection, 'pageInfo') : null;
  if (!isObjectType(connection) || !edge || !pageInfo) return true;
  const fieldNodes = info.fieldNodes as FieldNode[];
  const edges = subFieldNodes(info, connection, fieldNodes, 'edges');
  if (edges.length > 0 && subFieldNodes(info, edge, edges, 'cursor').length > 0) return true;
  const pages = subFieldNodes(info, connection, fieldNodes, 'pageInfo');
  return pages.length > 0 && (subFieldNodes(info, pageInfo, pages, 'startCursor').length > 0 || subFieldNodes(info, pageInfo, pages, 'endCursor').length > 0);
}
