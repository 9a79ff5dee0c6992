/**
 * Kafka topics of the content events, one per entity so a consumer reads only what it needs.
 * `KAFKA_TOPIC_PREFIX` (optional) is prepended so parallel test runs and several deployments can
 * share one cluster without reading each other's events: prefix `t1_` gives `t1_content.posts`.
 */
export type ContentEntity = 'user' | 'post' | 'comment';

export const CONTENT_TOPIC_BASES: Record<ContentEntity, string> = {
  user: 'content.users',
  post: 'content.posts',
  comment: 'content.comments',
};

function topicPrefixFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.KAFKA_TOPIC_PREFIX ?? '';
}

export function contentTopic(entity: ContentEntity, prefix: string = topicPrefixFromEnv()): string {
  return `${prefix}${CONTENT_TOPIC_BASES[entity]}`;
}

export function contentTopics(prefix: string = topicPrefixFromEnv()): Record<ContentEntity, string> {
  return {
    user: contentTopic('user', prefix),
    post: contentTopic('post', prefix),
    comment: contentTopic('comment', prefix),
  };
}
