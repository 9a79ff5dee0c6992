import { collectSubFields } from '@graphql-tools/utils';
import { getNamedType, isObjectType, type FieldNode, type GraphQLResolveInfo } from 'graphql';

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
  const fieldNodes = info.fieldNodes as FieldNode[];
  const { fields, patches } = collectSubFields(info.schema, info.fragments, info.variableValues, type, fieldNodes);
  return [fields, ...patches.map((patch) => patch.fields)].some((group) =>
    [...group.values()].some((nodes) => nodes.some((node) => node.name.value === name)),
  );
}
