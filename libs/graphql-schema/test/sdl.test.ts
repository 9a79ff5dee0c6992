import { buildSchema, isObjectType, isEnumType } from 'graphql';
import {
  POST_STATUSES,
  RETIRED_POST_STATUSES,
  RETIRED_ROLES,
  RETIRED_USER_STATUSES,
  USER_ROLES,
  USER_STATUSES,
} from '@platform/events';
import { typeDefs, toGlobalId, fromGlobalId } from '@platform/graphql-schema';

describe('content SDL', () => {
  const schema = buildSchema(typeDefs);

  it('has every query, mutation and subscription of the content API', () => {
    const query = schema.getQueryType()!.getFields();
    expect(Object.keys(query).sort()).toEqual(['comment', 'me', 'node', 'post', 'posts', 'search', 'user', 'users']);
    const mutation = schema.getMutationType()!.getFields();
    expect(Object.keys(mutation).sort()).toEqual([
      'createComment',
      'createPost',
      'createUser',
      'deleteComment',
      'deletePost',
      'deleteUser',
      'updateComment',
      'updatePost',
      'updateUser',
    ]);
    const subscription = schema.getSubscriptionType()!.getFields();
    expect(Object.keys(subscription).sort()).toEqual([
      'onCommentAdded',
      'onPostCreated',
      'onPostUpdated',
      'onUserCreated',
      'onUserUpdated',
    ]);
  });

  it('takes the fuller variants', () => {
    const status = schema.getType('UserStatus');
    expect(isEnumType(status) && status.getValues().map((v) => v.name)).toContain('DELETED');
    const users = schema.getQueryType()!.getFields().users!;
    expect(users.args.map((a) => a.name)).toEqual(expect.arrayContaining(['last', 'before']));
    const user = schema.getType('User');
    expect(isObjectType(user) && user.getInterfaces().map((i) => i.name)).toEqual(['Node']);
  });

  it('takes its closed lists from libs/events, the retired values deprecated', () => {
    const lists = [
      ['UserStatus', USER_STATUSES, RETIRED_USER_STATUSES],
      ['Role', USER_ROLES, RETIRED_ROLES],
      ['PostStatus', POST_STATUSES, RETIRED_POST_STATUSES],
    ] as const;
    for (const [name, values, retired] of lists) {
      const type = schema.getType(name);
      if (!isEnumType(type)) throw new Error(`${name} is not an enum`);
      expect(type.getValues().map((v) => v.name)).toEqual([...values]);
      expect(
        type
          .getValues()
          .filter((v) => v.deprecationReason)
          .map((v) => v.name),
      ).toEqual([...retired]);
    }
  });
});

describe('global ids', () => {
  it('round-trips and rejects junk', () => {
    const id = toGlobalId('Post', 42);
    expect(fromGlobalId(id)).toEqual({ type: 'Post', localId: '42' });
    expect(fromGlobalId('not base64!')).toBeNull();
    expect(fromGlobalId(Buffer.from('Thing:1').toString('base64url'))).toBeNull();
    expect(fromGlobalId('')).toBeNull();
  });
});
