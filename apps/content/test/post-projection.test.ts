import { postProjection } from '../src/graphql/post-projection';

describe('postProjection', () => {
  it('reads what every listed post needs, the sort field and the selected fields', () => {
    expect(postProjection(new Set(['title', 'author']), 'viewCount')).toEqual({
      _id: 1,
      status: 1,
      author: 1,
      createdAt: 1,
      viewCount: 1,
      title: 1,
    });
  });

  it('reads whole documents for an unknown selection or a field it does not know', () => {
    expect(postProjection(null, 'createdAt')).toBeNull();
    expect(postProjection(new Set(['title', 'somethingNew']), 'createdAt')).toBeNull();
  });
});
