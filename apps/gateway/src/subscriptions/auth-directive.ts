import {
  GraphQLError,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  valueFromASTUntyped,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { GraphQLErrorCode } from '@platform/errors';
import { roleRank, viewerRank, type Viewer } from './viewer';

/**
 * `@auth(requires: Role)` on any field the subscription selects, checked once when the client
 * subscribes (a subscription either may see its whole selection or is refused), with the
 * directive's default role USER. Anonymous callers get UNAUTHENTICATED, others FORBIDDEN.
 */
export function checkAuthDirectives(schema: GraphQLSchema, document: DocumentNode, viewer: Viewer): GraphQLError[] {
  const typeInfo = new TypeInfo(schema);
  const errors: GraphQLError[] = [];
  const rank = viewerRank(viewer);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const definition = typeInfo.getFieldDef();
        const directive = definition?.astNode?.directives?.find((d) => d.name.value === 'auth');
        if (!directive) return;
        const argument = directive.arguments?.find((a) => a.name.value === 'requires');
        const required = argument ? String(valueFromASTUntyped(argument.value)) : 'USER';
        if (rank >= roleRank(required)) return;
        const anonymous = rank < 0;
        errors.push(
          new GraphQLError(
            anonymous
              ? `${definition!.name} requires authentication`
              : `${definition!.name} requires the role ${required}`,
            {
              nodes: [node],
              extensions: { code: anonymous ? GraphQLErrorCode.UNAUTHENTICATED : GraphQLErrorCode.FORBIDDEN },
            },
          ),
        );
      },
    }),
  );
  return errors;
}
