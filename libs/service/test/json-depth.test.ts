import { MAX_JSON_DEPTH, jsonNestsDeeperThan, refuseDeepJson } from '../src';

const bytes = (text: string) => Buffer.from(text);

describe('JSON nesting bound', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonNestsDeeperThan(bytes(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`))).toBe(false);
    expect(jsonNestsDeeperThan(bytes(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`))).toBe(true);
    expect(jsonNestsDeeperThan(bytes(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`))).toBe(
      true,
    );
    expect(jsonNestsDeeperThan(bytes(JSON.stringify({ text: '['.repeat(1000), quoted: '\\"[[[[' })))).toBe(false);
    expect(jsonNestsDeeperThan(bytes(`[${'[],'.repeat(10_000)}[]]`))).toBe(false);
  });

  it('refuses a deep body as a 400 before it is parsed, and lets the rest through', () => {
    expect(() => refuseDeepJson(undefined, undefined, bytes('['.repeat(512 * 1024)))).toThrow(
      expect.objectContaining({ status: 400, type: 'entity.too.deep' }),
    );
    expect(() => refuseDeepJson(undefined, undefined, bytes('{"title":"[[["}'))).not.toThrow();
  });
});
