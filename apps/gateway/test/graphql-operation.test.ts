import { getOperationAST, Kind, parse } from 'graphql';
import { readGraphqlBody, SCAN_SLICE_BYTES } from '../src/routing/graphql-body';
import {
  graphqlOperationKind,
  graphqlOperationKindFromQueryString,
  operationKind,
  type OperationKind,
} from '../src/routing/graphql-operation';

/** What the gateway decides for a POST body: the operation's kind, or `refused` (a 400). */
async function kindOfBody(body: string | Buffer): Promise<OperationKind | 'refused'> {
  const read = await readGraphqlBody(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return read.shape === 'refused' ? 'refused' : graphqlOperationKind(read);
}

const kindOf = (request: unknown) => kindOfBody(JSON.stringify(request));

/** A seeded generator of integers below `n` (mulberry32), so generated cases are the same on every run. */
function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
  };
}

describe('the operation a GraphQL-over-HTTP request runs', () => {
  it('names queries, mutations and subscriptions, selected by operationName as GraphQL selects them', async () => {
    expect(await kindOf({ query: '{ posts { totalCount } }' })).toBe('query');
    expect(await kindOf({ query: 'query Posts { posts { totalCount } }', operationName: null })).toBe('query');
    expect(await kindOf({ query: 'mutation { deletePost(id: "1") { success } }' })).toBe('mutation');
    expect(
      await kindOf({
        query: 'mutation Delete($id: ID!) @a(b: {c: [1]}) { deletePost(id: $id) { success } }',
        variables: { id: '1' },
      }),
    ).toBe('mutation');
    expect(await kindOf({ query: 'query A { a } mutation B { b }', operationName: 'B' })).toBe('mutation');
    expect(await kindOf({ query: 'query A { a } mutation B { b }', operationName: 'A' })).toBe('query');
    expect(
      await kindOf({
        query: 'fragment F on Post { id } query A { ...F } mutation B { b { ...F } }',
        operationName: 'A',
      }),
    ).toBe('query');
    expect(await kindOf({ query: 'subscription { onPostCreated { id } }' })).toBe('subscription');
    expect(await graphqlOperationKindFromQueryString('subscription { onPostCreated { id } }', undefined)).toBe(
      'subscription',
    );
    expect(await graphqlOperationKindFromQueryString('query A { a } mutation B { b }', 'B')).toBe('mutation');
  });

  it('is unknown for what content will not run: no document, a syntax error, a name that selects nothing, two operations and no name', async () => {
    expect(await kindOf({ query: '{ posts ' })).toBe('unknown');
    expect(await kindOf({ query: 42 })).toBe('unknown');
    expect(await kindOf({ query: '' })).toBe('unknown');
    expect(await kindOf({ variables: {} })).toBe('unknown');
    expect(await kindOf({ query: 'query A { a } mutation B { b }' })).toBe('unknown');
    expect(await kindOf({ query: 'query A { a } mutation B { b }', operationName: 'C' })).toBe('unknown');
    expect(await kindOf({ query: 'type Query { a: Int } mutation { b }' })).toBe('unknown');
    expect(await kindOf({ query: 'mutation { a }', operationName: 7 })).toBe('unknown');
  });

  it('takes what it cannot see as a mutation: a batch, and a persisted query sent by its hash alone', async () => {
    expect(await kindOf([{ query: '{ posts { totalCount } }' }, 'not a request'])).toBe('mutation');
    const persisted = { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } };
    expect(await kindOf(persisted)).toBe('mutation');
    expect(await kindOf({ ...persisted, query: null })).toBe('mutation');
    // Apollo takes a falsy non-string query as absent, and looks the hash up.
    expect(await kindOf({ ...persisted, query: 0 })).toBe('mutation');
    expect(await kindOf({ query: '{ a }', extensions: {} })).toBe('query');
  });

  it('is not tricked into taking a mutation for a query', async () => {
    const mutation = 'mutation { deletePost(id: "1") { success } }';
    // JSON: the member named twice (JSON.parse keeps the last), also through an escaped name.
    expect(await kindOfBody(`{"query":"{ a }","query":${JSON.stringify(mutation)}}`)).toBe('refused');
    expect(await kindOfBody(`{"query":"{ a }","\\u0071uery":${JSON.stringify(mutation)}}`)).toBe('refused');
    expect(await kindOfBody(`{"operationName":"A","operationName":"B","query":"query A { a } mutation B { b }"}`)).toBe(
      'refused',
    );
    // JSON escapes in the member's name and value are decoded before judging.
    expect(await kindOfBody(`{"\\u0071uery":"mut\\u0061tion { a }"}`)).toBe('mutation');
    expect(await kindOfBody(`{"query":"\\u006d\\u0075\\u0074ation { a }"}`)).toBe('mutation');
    // A `query` member that is not the request's own.
    expect(await kindOf({ variables: { query: '{ a }' }, query: mutation })).toBe('mutation');
    expect(await kindOf({ extensions: { nested: [{ query: '{ a }' }] }, query: mutation })).toBe('mutation');
    // A UTF-8 byte order mark, which content's parser drops.
    expect(
      await kindOfBody(
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ query: mutation }))]),
      ),
    ).toBe('mutation');
    // GraphQL comments, strings and block strings that look like definitions.
    expect(await kindOf({ query: '# query { a }\nmutation { b }' })).toBe('mutation');
    expect(await kindOf({ query: 'query A { a } # }\r mutation B { b }', operationName: 'B' })).toBe('mutation');
    expect(await kindOf({ query: 'mutation M { a(s: "} query Q { b }") }', operationName: 'M' })).toBe('mutation');
    expect(await kindOf({ query: 'mutation M { a(s: "\\" } query Q { b } \\"") }' })).toBe('mutation');
    expect(await kindOf({ query: 'mutation M { a(s: """ \\""" } query Q { b } """) }' })).toBe('mutation');
    expect(await kindOf({ query: '"a description" mutation { a }' })).toBe('mutation');
    expect(await kindOf({ query: '\ufeff,,mutation{a}' })).toBe('mutation');
    // Two operations of one name (validation refuses them): the stricter counts.
    expect(await kindOf({ query: 'query A { a } mutation A { b }', operationName: 'A' })).toBe('mutation');
    // Past the token bound the old parser had (it answered `unknown` there).
    expect(await kindOf({ query: `mutation { ${'a '.repeat(20_001)}}` })).toBe('mutation');
  });

  it('agrees with graphql-js on every document graphql-js accepts (generated from tricky pieces, and with a character dropped)', async () => {
    const random = seeded(42);
    const pick = <T>(items: readonly T[]): T => items[random(items.length)]!;
    const ignored = ['', ' ', ',', '\n', '# mutation { x }\n', '# } query Q {\r', '\ufeff'];
    const fields = [
      'a',
      'b(x: "}")',
      'c(x: """ \\""" { mutation """)',
      'd(s: "\\" { ")',
      'e { f }',
      '...F',
      '... on T { g }',
      'h @include(if: true)',
    ];
    const selection = (): string =>
      `{${pick(ignored)}${Array.from({ length: 1 + random(3) }, () => pick(fields)).join(pick([' ', ',', '\n']))}${pick(ignored)}}`;
    const definition = (): string => {
      const head = pick(['query', 'mutation', 'subscription', 'fragment F on T', '', 'query', 'mutation']);
      if (head === '') return selection();
      const name = head.startsWith('fragment') ? '' : pick(['', ' A', ' B', ' query', ' mutation']);
      const variables = head.startsWith('fragment')
        ? ''
        : pick(['', '($v: In = { k: [1, "{"] })', '($w: String = """ } """)']);
      return `${pick(['', '"desc" '])}${head}${name}${pick(ignored)}${variables}${pick(['', ' @d(x: 1)'])}${pick(ignored)}${selection()}`;
    };
    const kinds = new Map<OperationKind, number>();
    for (let i = 0; i < 6_000; i++) {
      let text = Array.from({ length: 1 + random(3) }, definition).join(pick(ignored.concat(' ')));
      if (random(4) === 0) {
        const at = random(text.length);
        text = text.slice(0, at) + text.slice(at + 1);
      }
      const operationName = pick([undefined, 'A', 'B', 'query', 'mutation']);
      let expected: OperationKind;
      try {
        const document = parse(text);
        const operation = getOperationAST(document, operationName);
        expected = operation ? operation.operation : 'unknown';
        // Operations sharing the name (which validation refuses): graphql-js takes the first, the gateway the strictest.
        const named = document.definitions.filter(
          (d) => d.kind === Kind.OPERATION_DEFINITION && operationName !== undefined && d.name?.value === operationName,
        );
        if (named.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'mutation'))
          expected = 'mutation';
      } catch {
        continue;
      }
      kinds.set(expected, (kinds.get(expected) ?? 0) + 1);
      expect({ text, operationName, kind: await operationKind(text, operationName) }).toEqual({
        text,
        operationName,
        kind: expected,
      });
    }
    // Each kind came up often enough to mean something.
    for (const kind of ['query', 'mutation', 'subscription', 'unknown'] as const)
      expect({ kind, enough: (kinds.get(kind) ?? 0) > 100 }).toEqual({ kind, enough: true });
  });
});

describe('reading a POST body', () => {
  it('refuses JSON nested past the bound, whatever its size, without reading on', async () => {
    expect(
      await kindOf({ query: '{ a }', variables: { a: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] } }),
    ).toBe('query');
    const deep = await readGraphqlBody(
      Buffer.from(`{"query":"{ a }","variables":{"a":${'['.repeat(40)}${']'.repeat(40)}}}`),
    );
    expect(deep).toEqual({ shape: 'refused', message: 'the request body nests deeper than 32 arrays or objects' });
    const megabyte = await readGraphqlBody(Buffer.from('['.repeat(512 * 1024) + ']'.repeat(512 * 1024)));
    expect(megabyte.shape).toBe('refused');
  });

  it('gives the event loop a turn every slice of a large body and of its document, and none for a small one', async () => {
    const turns = async (work: () => Promise<unknown>) => {
      let turned = false;
      setImmediate(() => (turned = true));
      await work();
      return turned;
    };
    const large = JSON.stringify({
      query: `{ ${'a '.repeat(SCAN_SLICE_BYTES)}}`,
      variables: { a: 'x'.repeat(SCAN_SLICE_BYTES) },
    });
    expect(await turns(() => readGraphqlBody(Buffer.from(large)))).toBe(true);
    expect(await turns(() => operationKind(`{ ${'a '.repeat(SCAN_SLICE_BYTES)}}`, undefined))).toBe(true);
    expect(await turns(() => kindOf({ query: '{ a }' }))).toBe(false);
  });

  it('refuses what is not a JSON object or array, and JSON that does not hold together', async () => {
    for (const body of [
      '',
      '   ',
      '42',
      '"query"',
      'null',
      '{"query":"{ a }"',
      '{"query" "{ a }"}',
      '{"query":"{ a }",}',
      '[1,]',
      '{} {}',
      '{"a":1}x',
      '{"query":"{ a }"]',
      '{"query":"\\x"}',
    ]) {
      expect({ body, read: (await readGraphqlBody(Buffer.from(body))).shape }).toEqual({ body, read: 'refused' });
    }
    expect(await readGraphqlBody(Buffer.from('{}'))).toEqual({
      shape: 'request',
      query: undefined,
      operationName: undefined,
      hasExtensions: false,
    });
    expect(await readGraphqlBody(Buffer.from(' [ ] '))).toEqual({ shape: 'batch' });
  });

  it('reads what JSON.parse reads (generated bodies, and those bodies with a character dropped or repeated)', async () => {
    const random = seeded(7);
    const names = ['"query"', '"\\u0071uery"', '"operationName"', '"extensions"', '"variables"', '"a"'];
    const scalars = ['"{ a }"', '"mutation { a }"', '"A"', '"\\"}"', '1', '-2.5e3', 'null', 'true', '""'];
    const space = () => [' ', '', '\n', ''][random(4)];
    const value = (depth: number): string => {
      const pick = random(depth > 3 ? 1 : 4);
      if (pick === 0) return scalars[random(scalars.length)]!;
      if (pick === 1) return `[${Array.from({ length: random(3) }, () => value(depth + 1)).join(`,${space()}`)}]`;
      return `{${Array.from({ length: random(4) }, () => `${space()}${names[random(names.length)]}${space()}:${space()}${value(depth + 1)}`).join(',')}}`;
    };
    const bodies: string[] = [];
    for (let i = 0; i < 6_000; i++) {
      const body =
        random(5) === 0
          ? `[${value(1)}]`
          : `{${Array.from({ length: 1 + random(3) }, () => `${names[random(names.length)]}:${value(1)}`).join(',')}}`;
      bodies.push(body);
      const at = random(body.length);
      bodies.push(random(2) ? body.slice(0, at) + body.slice(at + 1) : body.slice(0, at) + body[at]! + body.slice(at));
    }
    let parsed = 0;
    for (const text of bodies) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        continue;
      }
      parsed++;
      const read = await readGraphqlBody(Buffer.from(text));
      if (typeof json !== 'object' || json === null) {
        expect({ text, shape: read.shape }).toEqual({ text, shape: 'refused' });
        continue;
      }
      if (read.shape === 'refused') {
        // Refused only for a member it needs named twice.
        expect({ text, message: read.message }).toEqual({ text, message: expect.stringContaining('twice') });
        continue;
      }
      if (Array.isArray(json)) {
        expect({ text, shape: read.shape }).toEqual({ text, shape: 'batch' });
        continue;
      }
      const { query, operationName } = json as { query?: unknown; operationName?: unknown };
      const asRead = (member: unknown) =>
        typeof member === 'string' || member === null || member === undefined ? member : 'other';
      expect({
        text,
        query: asRead(read.shape === 'request' ? read.query : undefined),
        operationName: asRead(read.shape === 'request' ? read.operationName : undefined),
      }).toEqual({ text, query: asRead(query), operationName: asRead(operationName) });
    }
    expect(parsed).toBeGreaterThan(3_000);
  });
});
