import { PostListQuery, PostPatch, PostWrite, Registration, UserPut } from '@platform/contracts';
import { parseBody, parseQuery } from '../src/http/parse-request';
import { ContentValidationError } from '../src/http/rest-errors';

/** The `{errors}` a parse refuses with (docs/content.md "REST /api/v1"), or the parsed value. */
function refusal(parse: () => unknown): Record<string, string> {
  try {
    parse();
  } catch (err) {
    if (err instanceof ContentValidationError) return err.errors;
    throw err;
  }
  throw new Error('the input was accepted');
}

describe('content REST request parsing (parse-request.ts over the contracts)', () => {
  it('words each standard refusal as the API always has, one message per property', () => {
    expect(
      refusal(() => parseBody(PostWrite, { content: 5, published: 'yes', title: 'x'.repeat(256), $where: 1 })),
    ).toEqual({
      $where: 'This field was not expected.',
      title: 'This value is too long. It should have 255 characters or less.',
      content: 'This value should be of type string.',
      published: 'This value should be of type bool.',
    });
    expect(refusal(() => parseBody(PostWrite, { title: null, content: '   ' }))).toEqual({
      title: 'This value should not be blank.',
      content: 'This value should not be blank.',
    });
    expect(refusal(() => parseBody(PostWrite, [1, 2]))).toEqual({ body: 'must be a JSON object' });
    expect(refusal(() => parseBody(Registration, { name: ' ', email: 'not-an-email', password: 'short' }))).toEqual({
      name: 'This value should not be blank.',
      email: 'This value is not a valid email address.',
      password: 'This value should not be blank.',
    });
  });

  it('names list items, and a list refused as a whole is not also refused item by item', () => {
    expect(refusal(() => parseBody(PostPatch, { tags: ['ok', 5, ' ', '!!'] }))).toEqual({
      'tags[1]': 'This value should be a slug string or an object with a slug.',
      'tags[2]': 'This value should have 1 to 50 characters.',
      'tags[3]': 'This value should contain letters or digits.',
    });
    expect(
      refusal(() => parseBody(PostPatch, { tags: [...Array(21).keys()].map((i) => (i === 0 ? 5 : `t${i}`)) })),
    ).toEqual({
      tags: 'This collection should contain 20 elements or less.',
    });
    expect(
      refusal(() => parseBody(UserPut, { name: 'x', roles: ['constructor'], status: 'GONE', avatar: 'ftp://x' })),
    ).toEqual({
      avatar: 'This value is not a valid URL.',
      status: 'The value you selected is not a valid choice.',
      roles: 'This value should be a list of ROLE_ADMIN, ROLE_MODERATOR, ROLE_USER.',
    });
  });

  it('reads what the hand-written readers read: trimmed text, null as left out where optional, names as given', () => {
    expect(
      parseBody(PostPatch, { title: null, content: null, category: { slug: null, name: ' News ' } }),
    ).toMatchObject({
      title: null,
      content: null,
      category: 'News',
    });
    expect(
      parseBody(UserPut, { name: ' Ada ', status: ' ACTIVE ', email: null, avatar: '', id: 'echoed' }),
    ).toMatchObject({
      name: 'Ada',
      status: 'ACTIVE',
      avatar: '',
    });
  });

  it('names a property called __proto__ like any other unknown one (a plain object would swallow it)', () => {
    expect(refusal(() => parseBody(PostWrite, JSON.parse('{"title":"t","content":"c","__proto__":{"x":1}}')))).toEqual(
      JSON.parse('{"__proto__":"This field was not expected."}'),
    );
    const query = Object.assign(Object.create(null) as Record<string, unknown>, { ['__proto__']: '1' });
    expect(Object.keys(refusal(() => parseQuery(PostListQuery, query)))).toEqual(['__proto__']);
  });

  it('query strings: unknown parameters all at once, otherwise the first wrong one; defaults for absent or empty', () => {
    expect(refusal(() => parseQuery(PostListQuery, { sort: 'x', 'tag[$gt]': '', limit: '0' }))).toEqual({
      sort: 'This parameter is not supported.',
      'tag[$gt]': 'This parameter is not supported.',
    });
    expect(refusal(() => parseQuery(PostListQuery, { page: 'abc', limit: '101' }))).toEqual({
      page: 'This value should be a positive integer.',
    });
    expect(refusal(() => parseQuery(PostListQuery, { limit: '101' }))).toEqual({
      limit: 'This value should be 100 or less.',
    });
    expect(refusal(() => parseQuery(PostListQuery, { tag: ['a', 'b'] }))).toEqual({
      tag: 'This value should be of type string.',
    });
    expect(refusal(() => parseQuery(PostListQuery, { page: ['1', '2'] }))).toEqual({
      page: 'This value should be of type string.',
    });
    expect(parseQuery(PostListQuery, { page: '', limit: '25', tag: 'TypeScript' })).toEqual({
      page: 1,
      limit: 25,
      tag: 'TypeScript',
    });
  });
});
