import fc from 'fast-check';
import { buildSchema, parse } from 'graphql';
import { FIELD_COST, measureQuery, queryLimitError, QUERY_SHAPE_LIMITS, typeDefs } from '@platform/graphql-schema';

const schema = buildSchema(typeDefs);
const measure = (query: string, variables: Record<string, unknown> = {}) =>
  measureQuery(schema, parse(query), variables);
const { field, page, count, textSearch } = FIELD_COST;

describe('query cost model', () => {
  it('prices a page query, and its items by page size (first: 0 still runs the page query)', () => {
    // posts + edges + node + title, the last two once per item.
    expect(measure('{ posts(first: 5) { edges { node { title } } } }').cost).toBe(
      field + page + field + 5 * (2 * field),
    );
    expect(measure('{ posts(first: 0) { edges { node { id } } } }').cost).toBe(field + page + field + 2 * field);
    expect(measure('query($n: Int) { posts(first: $n) { edges { node { id } } } }', { n: 40 }).cost).toBe(
      field + page + field + 40 * 2 * field,
    );
    // Without first: the default page of 10; above the maximum: priced at the maximum.
    expect(measure('{ posts { edges { node { id } } } }').cost).toBe(field + page + field + 10 * 2 * field);
    expect(measure('{ posts(first: 1000) { edges { node { id } } } }').cost).toBe(
      field + page + field + QUERY_SHAPE_LIMITS.maxPageSize * 2 * field,
    );
  });

  it('prices totalCount once per connection, and a text search for the scan it causes', () => {
    expect(measure('{ posts(first: 0) { totalCount } }').cost).toBe(field + page + field + count);
    expect(measure('{ posts(first: 0, filter: { search: "x" }) { totalCount } }').cost).toBe(
      field + page + textSearch + field + textSearch,
    );
    expect(measure('query($f: PostFilter) { users(filter: $f) { totalCount } }', { f: { search: 'ada' } }).cost).toBe(
      field + page + textSearch + field + textSearch,
    );
    // An empty search string filters nothing.
    expect(measure('{ posts(first: 0, filter: { search: "" }) { totalCount } }').cost).toBe(
      field + page + field + count,
    );
    // Nested connections: each author's count is paid for each post.
    expect(measure('{ posts(first: 20) { edges { node { comments(first: 0) { totalCount } } } } }').cost).toBe(
      field + page + field + 20 * (field + (field + page + field + count)),
    );
  });

  it('prices search() as a text search with limit items', () => {
    expect(measure('{ search(query: "kafka", limit: 20) { ... on Post { title } } }').cost).toBe(
      field + textSearch + 20 * field,
    );
    expect(measure('{ search(query: "kafka") { __typename } }').cost).toBe(field + textSearch);
  });

  it('counts repeated selections (aliases of a field already selected), fragments included; a rename is free', () => {
    expect(measure('{ p: posts { totalCount } }').aliases).toBe(0);
    expect(measure('{ a: post(id: "1") { id } b: post(id: "2") { id } c: post(id: "3") { id } }').aliases).toBe(2);
    expect(measure('{ post(id: "1") { ...F } } fragment F on Post { t1: title t2: title title }').aliases).toBe(2);
    expect(measure('{ post(id: "1") { x: id } posts { edges { node { x: id y: id } } } }').aliases).toBe(1);
    // Repeats under the same response name count too (they merge, but validation compares every pair).
    expect(measure('{ a: posts { totalCount } a: posts { totalCount } }').aliases).toBe(1);
    expect(measure('{ __typename __typename __schema { types { name name } } }').aliases).toBe(2);
  });

  it('measures depth without introspection fields', () => {
    expect(measure('{ post(id: "1") { author { name } } }').depth).toBe(3);
    expect(measure('{ __schema { types { fields { type { name } } } } }').depth).toBe(0);
  });

  it('measures subscriptions by the same rules', () => {
    expect(measure('subscription { onPostCreated { title comments(first: 3) { totalCount } } }').cost).toBe(
      field + field + field + page + field + count,
    );
  });

  it('turns a breach into QUERY_TOO_DEEP or QUERY_TOO_COMPLEX, depth first', () => {
    expect(queryLimitError({ depth: 10, cost: 100, aliases: 30 }, 100)).toBeNull();
    expect(queryLimitError({ depth: 11, cost: 1e9, aliases: 1000 }, 100)?.extensions.code).toBe('QUERY_TOO_DEEP');
    expect(queryLimitError({ depth: 2, cost: 1, aliases: 31 }, 100)?.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      aliases: 31,
      maxAliases: 30,
    });
    expect(queryLimitError({ depth: 2, cost: 101, aliases: 0 }, 100)?.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      cost: 101,
      maxCost: 100,
    });
  });

  it('prices a thousand aliased text-search counts far over any budget', () => {
    const fields = Array.from(
      { length: 1000 },
      (_, i) => `p${i}: posts(first: 0, filter: { search: "needle" }) { totalCount }`,
    ).join(' ');
    const m = measure(`{ ${fields} }`);
    expect(m.aliases).toBe(999);
    expect(m.cost).toBe(1000 * (field + page + textSearch + field + textSearch));
  });

  it('stops walking a document nested past every limit instead of recursing to its end', () => {
    const deep = `{ ${'post(id: "1") { author { '.repeat(400)}id${' } }'.repeat(400)} }`;
    expect(() => measure(deep)).not.toThrow();
    expect(queryLimitError(measure(deep), 5000)?.extensions.code).toBe('QUERY_TOO_DEEP');
    // Spreads nest without nesting the text: the parser takes a chain of 20 000 in its stride.
    const chain = Array.from({ length: 20_000 }, (_, i) => `fragment F${i} on Post { ...F${i + 1} }`).join(' ');
    const chained = measure(`{ post(id: "1") { ...F0 } } ${chain} fragment F20000 on Post { id }`);
    expect(chained.depth).toBeGreaterThan(QUERY_SHAPE_LIMITS.maxDepth);
  });

  it('measures any document that parses, valid or not, without throwing (seeded)', () => {
    const names = [
      'posts',
      'post',
      'users',
      'comments',
      'replies',
      'author',
      'edges',
      'node',
      'totalCount',
      'title',
      'search',
      'nope',
      '__typename',
    ];
    const args = [
      '',
      '(first: 0)',
      '(first: 100)',
      '(first: $n)',
      '(first: "x")',
      '(limit: 50)',
      '(filter: { search: "x" })',
      '(filter: $f)',
      '(query: "q")',
      '(id: 1)',
    ];
    const selection: fc.Arbitrary<string> = fc.letrec<{ set: string }>((tie) => ({
      set: fc
        .array(
          fc.oneof(
            { depthSize: 'small' },
            fc
              .tuple(
                fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
                fc.constantFrom(...names),
                fc.constantFrom(...args),
                fc.option(tie('set'), { nil: undefined }),
              )
              .map(
                ([alias, name, arg, inner]) => `${alias ? `${alias}: ` : ''}${name}${arg}${inner ? ` ${inner}` : ''}`,
              ),
            tie('set').map((inner) => `... on ${['Post', 'User', 'Nope'][inner.length % 3]} ${inner}`),
            fc.constantFrom('...F', '...G'),
          ),
          { minLength: 1, maxLength: 4 },
        )
        .map((items) => `{ ${items.join(' ')} }`),
    })).set;
    fc.assert(
      fc.property(selection, selection, fc.jsonValue(), (operation, fragment, n) => {
        const document = parse(
          `query($n: Int, $f: PostFilter) ${operation} fragment F on Post ${fragment} fragment G on PostConnection { ...F totalCount }`,
        );
        const m = measureQuery(schema, document, { n, f: { search: n } });
        expect(Number.isFinite(m.cost) && m.cost >= 0 && m.depth >= 0 && m.aliases >= 0).toBe(true);
      }),
      { seed: 20261123, numRuns: 300 },
    );
  });
});
