import {
  buildContentEvent,
  contentTopic,
  contentTopics,
  EventParseError,
  parseContentEvent,
  serializeContentEvent,
  type UserSnapshot,
} from '@platform/events';

const user: UserSnapshot = {
  id: 'VXNlcjph',
  localId: 'a',
  name: 'Ada',
  email: 'ada@example.com',
  avatar: null,
  status: 'ACTIVE',
  role: 'USER',
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: null,
};

describe('content events', () => {
  it('builds a CloudEvents 1.0 envelope and parses it back', () => {
    const event = buildContentEvent('user.created', user, { id: 'e1', time: new Date('2025-01-02T00:00:00Z') });
    expect(event).toEqual({
      specversion: '1.0',
      id: 'e1',
      source: '/content',
      type: 'user.created',
      subject: 'VXNlcjph',
      time: '2025-01-02T00:00:00.000Z',
      datacontenttype: 'application/json',
      dataschema: 'urn:platform:content-events:v1',
      data: user,
    });
    expect(parseContentEvent(Buffer.from(serializeContentEvent(event)))).toEqual(event);
  });

  it('rejects malformed messages with EventParseError', () => {
    for (const bad of [
      null,
      'nope',
      '[]',
      '{"specversion":"0.3"}',
      JSON.stringify({ ...buildContentEvent('user.created', user), type: 'x.y' }),
    ]) {
      expect(() => parseContentEvent(bad)).toThrow(EventParseError);
    }
  });

  it('names topics with an optional prefix', () => {
    expect(contentTopic('post', '')).toBe('content.posts');
    expect(contentTopics('t1_')).toEqual({
      user: 't1_content.users',
      post: 't1_content.posts',
      comment: 't1_content.comments',
    });
  });
});
