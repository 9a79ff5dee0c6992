import {
  Kind,
  print,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from 'graphql';

/** Asks content for one field of one entity (the selection under it included). */
export type FieldFetcher = (query: string, variables: Record<string, unknown>) => Promise<unknown>;

const ROOT_QUERY: Record<string, string> = { User: 'user', Post: 'post', Comment: 'comment' };

function usedNames(node: FieldNode, fragments: Record<string, FragmentDefinitionNode>) {
  const variables = new Set<string>();
  const spreads = new Set<string>();
  const walk = (root: FieldNode | FragmentDefinitionNode) =>
    visit(root, {
      Variable(v) {
        variables.add(v.name.value);
      },
      FragmentSpread(s) {
        if (spreads.has(s.name.value)) return;
        spreads.add(s.name.value);
        const fragment = fragments[s.name.value];
        if (fragment) walk(fragment);
      },
    });
  walk(node);
  return { variables, spreads };
}

/**
 * Builds the query that fetches `info`'s field of entity `id` from content, reusing the
 * subscriber's own selection (aliases, fragments and variables included) so the answer has
 * exactly the shape the rest of execution reads.
 */
export function nestedFieldQuery(
  typeName: string,
  id: string,
  info: GraphQLResolveInfo,
): { query: string; variables: Record<string, unknown>; key: string } | null {
  const root = ROOT_QUERY[typeName];
  const field = info.fieldNodes[0];
  if (!root || !field) return null;
  const { variables, spreads } = usedNames(field, info.fragments);
  const operation = info.operation as OperationDefinitionNode;
  const definitions: VariableDefinitionNode[] = (operation.variableDefinitions ?? []).filter((d) =>
    variables.has(d.variable.name.value),
  );
  const values: Record<string, unknown> = { __id: id };
  for (const name of variables) values[name] = info.variableValues[name];
  const printedVars = ['$__id: ID!', ...definitions.map((d) => print(d))].join(', ');
  const fragmentText = [...spreads]
    .map((name) => info.fragments[name])
    .filter(Boolean)
    .map((f) => print(f!))
    .join('\n');
  const query = `query GatewaySubscriptionFetch(${printedVars}) { entity: ${root}(id: $__id) { ${print(field)} } }\n${fragmentText}`;
  return { query, variables: values, key: `${query}\u0000${JSON.stringify(values)}` };
}

/** True when a selection reads `email` anywhere (results then depend on who is looking). */
export function selectsEmail(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === 'email') found = true;
    },
  });
  return found;
}

export { Kind };
