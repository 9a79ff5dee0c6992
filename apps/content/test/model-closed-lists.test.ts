import { createConnection } from 'mongoose';
import { POST_STATUSES, USER_ROLES, USER_STATUSES } from '@platform/events';
import { createModels } from '../src/models';

/**
 * The stored status and role of users and posts are held to libs/events' closed lists by the models
 * themselves, behind the REST and GraphQL checks. Validation is offline: the connection never opens.
 */
describe('content models', () => {
  const connection = createConnection();
  const models = createModels(connection);
  afterAll(() => connection.close());

  const user = (fields: Record<string, unknown>) =>
    new models.users({
      _id: 'a1',
      name: 'Ada',
      nameLower: 'ada',
      email: 'ada@example.com',
      createdAt: new Date(),
      updatedAtSort: new Date(),
      rev: 1,
      ...fields,
    });
  const post = (fields: Record<string, unknown>) =>
    new models.posts({
      _id: 1,
      title: 'T',
      titleLower: 't',
      slug: 't',
      content: 'c',
      published: false,
      publishedAtSort: new Date(0),
      author: 'a1',
      createdAt: new Date(),
      rev: 1,
      ...fields,
    });

  it('accept every listed status and role', () => {
    for (const status of USER_STATUSES) expect(user({ status }).validateSync()).toBeUndefined();
    for (const role of USER_ROLES) expect(user({ role }).validateSync()).toBeUndefined();
    for (const status of POST_STATUSES) expect(post({ status }).validateSync()).toBeUndefined();
  });

  it('refuse a status or role outside the lists', () => {
    expect(user({ status: 'BANNED' }).validateSync()?.errors.status).toBeDefined();
    expect(user({ role: 'OWNER' }).validateSync()?.errors.role).toBeDefined();
    expect(post({ status: 'HIDDEN' }).validateSync()?.errors.status).toBeDefined();
  });
});
