import { makeExecutableSchema } from '@graphql-tools/schema';
import { execute, parse, type GraphQLResolveInfo } from 'graphql';
import { selectedNodeFields, selectsCursors, selectsField } from '../src/graphql/selection';

/** A connection like content's, whose resolver reports what the selection helpers say of its field. */
const typeDefs = /* GraphQL */ `
  type Post {
    id: ID!
    title: String
    body: String
  }
  type PostEdge {
    node: Post!
    cursor: String!
  }
  type PageInfo {
    endCursor: String
    hasNextPage: Boolean!
  }
  type PostConnection {
    edges: [PostEdge!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }
  type Query {
    posts: PostConnection!
  }
`;

function run(document: ReturnType<typeof parse>, variableValues: Record<string, unknown> = {}) {
  const seen: { fields: string[] | null; totalCount: boolean; cursors: boolean }[] = [];
  const schema = makeExecutableSchema({
    typeDefs,
    resolvers: {
      Query: {
        posts: (_s: unknown, _a: unknown, _c: unknown, info: GraphQLResolveInfo) => {
          const fields = selectedNodeFields(info);
          seen.push({
            fields: fields ? [...fields].sort() : null,
            totalCount: selectsField(info, 'totalCount'),
            cursors: selectsCursors(info),
          });
          return { edges: [], pageInfo: { endCursor: null, hasNextPage: false }, totalCount: 0 };
        },
      },
    },
  });
  const result = execute({ schema, document, variableValues });
  expect(result).toHaveProperty('data');
  return seen[0]!;
}

describe('selection answers remembered across requests', () => {
  it('gives the same answers for a parsed document run again', () => {
    const document = parse('{ posts { edges { node { title } } } }');
    const first = run(document);
    expect(first).toEqual({ fields: ['title'], totalCount: false, cursors: false });
    expect(run(document)).toEqual(first);
  });

  it('follows @include and @skip with the variables of each request', () => {
    const document = parse(`query ($count: Boolean!, $paged: Boolean!, $body: Boolean!) {
      posts { totalCount @include(if: $count) ...Paging edges { node { title body @include(if: $body) } } }
    }
    fragment Paging on PostConnection { pageInfo @skip(if: $paged) { endCursor } }`);
    expect(run(document, { count: true, paged: false, body: false })).toEqual({
      fields: ['title'],
      totalCount: true,
      cursors: true,
    });
    expect(run(document, { count: false, paged: true, body: true })).toEqual({
      fields: ['body', 'title'],
      totalCount: false,
      cursors: false,
    });
    expect(run(document, { count: true, paged: false, body: false })).toEqual({
      fields: ['title'],
      totalCount: true,
      cursors: true,
    });
  });

  it('answers each document for its own selection', () => {
    expect(run(parse('{ posts { totalCount edges { cursor node { id } } } }'))).toEqual({
      fields: ['id'],
      totalCount: true,
      cursors: true,
    });
    expect(run(parse('{ posts { edges { node { id title } } } }'))).toEqual({
      fields: ['id', 'title'],
      totalCount: false,
      cursors: false,
    });
  });
});
