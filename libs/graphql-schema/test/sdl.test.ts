import { buildSchema, isObjectType, isEnumType } from 'graphql';
import { typeDefs, toGlobalId, fromGlobalId } from '@platform/graphql-schema';

describe('content SDL', () => {
  const schema = buildSchema(typeDefs);

  it('has every query, mutation and subscription of the content API', () => {
    const query = schema.getQueryType()!.getFields();
    expect(Object.keys(query).sort()).toEqual(['comment', 'me', 'node', 'post', 'posts', 'search', 'user', 'users']);
    const mutation = schema.getMutationType()!.getFields();
    expect(Object.keys(mutation).sort()).toEqual(
      ['createComment', 'createPost', 'createUser', 'deleteComment', 'deletePost', 'deleteUser', 'updateComment', 'updatePost', 'updateUser'],
    );
    const subscription = schema.getSubscriptionType()!.getFields();
    expect(Object.keys(subscription).sort()).toEqual(['onCommentAdded', 'onPostCreated', 'onPostUpdated', 'onUserCreated', 'onUserUpdated']);
  });

  it('takes the fuller variants', () => {
    const status = schema.getType('UserStatus');
    expect(isEnumType(status) && status.getValues().map((v) => v.name)).toContain('DELETED');
    const users = schema.getQueryType()!.getFields().users!;
    expect(users.args.map((a) => a.name)).toEqual(expect.arrayContaining(['last', 'before']));
    const user = schema.getType('User');
    expect(isObjectType(user) && user.getInterfaces().map((i) => i.name)).toEqual(['Node']);
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
