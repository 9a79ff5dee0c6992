import { graphqlOperationKind, graphqlOperationKindFromQueryString } from '../src/routing/graphql-operation';

describe('graphqlOperationKind', () => {
  it('names the operation the request would run', () => {
    expect(graphqlOperationKind({ query: '{ posts { totalCount } }' })).toBe('query');
    expect(graphqlOperationKind({ query: 'mutation { deletePost(id: "1") { success } }' })).toBe('mutation');
    expect(graphqlOperationKind({ query: 'query A { a } mutation B { b }', operationName: 'B' })).toBe('mutation');
    expect(graphqlOperationKindFromQueryString('subscription { onPostCreated { id } }', undefined)).toBe('subscription');
  });

  it('is unknown for what it cannot parse, or past its token bound', () => {
    expect(graphqlOperationKind({ query: '{ posts ' })).toBe('unknown');
    expect(graphqlOperationKind({ query: 42 })).toBe('unknown');
    expect(graphqlOperationKind('query')).toBe('unknown');
    expect(graphqlOperationKind({ query: `{ ${'a '.repeat(20_001)}}` })).toBe('unknown');
  });

  it('takes a batch as a mutation without parsing it: a read-only caller cannot hide a mutation in one', () => {
    // An item that is not even a GraphQL request: nothing of the batch is parsed.
    expect(graphqlOperationKind([{ query: '{ posts { totalCount } }' }, 'not a request'])).toBe('mutation');
    const many = Array.from({ length: 150 }, (_, i) => ({ query: i === 149 ? 'mutation { deletePost(id: "1") { success } }' : '{ a }' }));
    expect(graphqlOperationKind(many)).toBe('mutation');
  });
});
