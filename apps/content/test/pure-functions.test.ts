import { compileConstraint } from '../src/graphql/directives/constraints';
import { checkLimits } from '../src/graphql/limits';
import { decodeCursor, encodeCursor } from '../src/graphql/connections';
import { createCursorCodec } from '../src/graphql/cursors';
import { scoreText, searchTerms } from '../src/graphql/resolvers/search';
import { reconcileStatus } from '../src/posts/post-writes';
import { slugify } from '../src/posts/slug';
import { parse } from 'graphql';

describe('slugify', () => {
  it('makes ASCII dash-separated slugs and never an empty one', () => {
    expect(slugify('Hello, Wörld! 2025')).toBe('hello-world-2025');
    expect(slugify('¿¡!!')).toBe('post');
    expect(slugify('a'.repeat(300))).toHaveLength(200);
  });
});

describe('reconcileStatus (PUBLISHED ⇔ published)', () => {
  it('follows whichever interface field changed', () => {
    expect(reconcileStatus('DRAFT', { published: true })).toBe('PUBLISHED');
    expect(reconcileStatus('PUBLISHED', { published: false })).toBe('DRAFT');
    expect(reconcileStatus('ARCHIVED', { published: false })).toBe('ARCHIVED');
    expect(reconcileStatus('DRAFT', { status: 'ARCHIVED' })).toBe('ARCHIVED');
    expect(reconcileStatus(undefined, {})).toBe('DRAFT');
  });
});

describe('@validate constraint language', () => {
  it('length, range, email, url, pattern; lists element-wise; null passes', () => {
    expect(compileConstraint('length:1..3')('')).toMatch(/blank/);
    expect(compileConstraint('length:1..3')('abcd')).toMatch(/at most 3/);
    expect(compileConstraint('length:..3')('abc')).toBeNull();
    expect(compileConstraint('range:0..100')(101)).toMatch(/between/);
    expect(compileConstraint('email')('a@b.co')).toBeNull();
    expect(compileConstraint('email')('nope')).not.toBeNull();
    expect(compileConstraint('url')('javascript:alert(1)')).not.toBeNull();
    expect(compileConstraint('pattern:^[a-z]+$')(['ok', 'NO'])).not.toBeNull();
    expect(compileConstraint('length:1..3')(null)).toBeNull();
    expect(() => compileConstraint('bogus')).toThrow(/unknown/);
  });
});

describe('cursors', () => {
  const codec = createCursorCodec('pure-functions-test-secret-0123456789');
  it('round-trip and reject tampering', () => {
    const sort = { field: 'createdAt', direction: -1 as const };
    const cursor = encodeCursor(codec, sort, { _id: 7, createdAt: new Date('2025-01-01T00:00:00Z') });
    expect(decodeCursor(codec, cursor, sort, 'after')).toEqual({ value: new Date('2025-01-01T00:00:00Z'), id: 7 });
    expect(() => decodeCursor(codec, cursor, { field: 'nameLower', direction: 1 }, 'after')).toThrow(/malformed/);
    expect(() => decodeCursor(codec, Buffer.from('[1,2]').toString('base64url'), sort, 'after')).toThrow(/malformed/);
    expect(() => decodeCursor(codec, '!!', sort, 'after')).toThrow(/malformed/);
  });

  it("each take a fresh IV, across the IV pool's refills, and every one opens", () => {
    const sealed = Array.from({ length: 1000 }, () => codec.seal('same plaintext', 'createdAt'));
    const ivs = new Set(sealed.map((c) => Buffer.from(c, 'base64url').subarray(1, 13).toString('hex')));
    expect(ivs.size).toBe(1000);
    expect(sealed.every((c) => codec.open(c, 'createdAt') === 'same plaintext')).toBe(true);
  });

  it('are sealed: nothing of the sort value is readable, every altered byte and every other key is refused', () => {
    const sort = { field: 'email', direction: 1 as const };
    const cursor = encodeCursor(codec, sort, { _id: 'u1', email: 'someone@example.org' });
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toMatch(/someone|example|u1/);
    expect(decodeCursor(codec, cursor, sort, 'after')).toEqual({ value: 'someone@example.org', id: 'u1' });
    const raw = Buffer.from(cursor, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw);
      altered[i] = altered[i]! ^ 1;
      expect(() => decodeCursor(codec, altered.toString('base64url'), sort, 'after')).toThrow(/malformed/);
    }
    const otherReplicaKey = createCursorCodec('another-deployment-secret-0123456789');
    expect(() => decodeCursor(otherReplicaKey, cursor, sort, 'after')).toThrow(/malformed/);
    // Replicas sharing the secret read each other's cursors.
    expect(decodeCursor(createCursorCodec('pure-functions-test-secret-0123456789'), cursor, sort, 'after').id).toBe(
      'u1',
    );
  });
});

describe('search ranking', () => {
  it('scores whole words over substrings and weights fields', () => {
    const terms = searchTerms('  Kafka  kafka STREAMS ');
    expect(terms).toEqual(['kafka', 'streams']);
    expect(scoreText('Kafka streams', terms, 3)).toBe(18);
    expect(scoreText('kafkaesque', terms, 3)).toBe(3);
    expect(scoreText(null, terms, 3)).toBe(0);
  });
});

describe('query limits', () => {
  it('prices pages by their size, including variables, and measures depth', () => {
    expect(checkLimits(parse('{ posts(first: 5) { edges { node { title } } } }'))).toBeNull();
    const q = parse(
      'query($n: Int) { posts(first: $n) { edges { node { comments(first: $n) { edges { node { id } } } } } } }',
    );
    expect(checkLimits(q, { n: 100 })?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(checkLimits(q, { n: 5 })).toBeNull();
    const deep = parse('{ a { b { c { d { e { f { g { h { i { j { k } } } } } } } } } } }');
    expect(checkLimits(deep)?.extensions.code).toBe('QUERY_TOO_DEEP');
  });
});
