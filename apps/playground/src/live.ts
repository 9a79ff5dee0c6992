import { createClient, type Client } from 'graphql-ws';
import type { Api } from './api';
import { busy, byId, el, say, submitButton } from './dom';

interface Author {
  name: string;
}
interface PostEvent {
  id: string;
  title: string;
  author: Author;
}
interface CommentEvent {
  id: string;
  content: string;
  author: Author;
}

const POST_CREATED = 'subscription { onPostCreated { id title author { name } } }';
const COMMENT_ADDED = 'subscription ($postId: ID!) { onCommentAdded(postId: $postId) { id content author { name } } }';
const CREATE_POST = `mutation ($input: CreatePostInput!) {
  createPost(input: $input) { success message errors { field message } post { id title } }
}`;
const CREATE_COMMENT = 'mutation ($input: CreateCommentInput!) { createComment(input: $input) { id } }';

/**
 * The Live posts tab: publish a post and comment on it over GraphQL (HTTP), and watch `onPostCreated`
 * and `onCommentAdded` events arrive over one graphql-ws connection (the GraphQL over WebSocket
 * protocol), authenticated with the access token in `connectionParams`.
 */
export function livePanel(api: Api, token: () => Promise<string>) {
  const form = byId('post-form', HTMLFormElement);
  const posts = byId('post-list', HTMLUListElement);
  const events = byId('event-list', HTMLOListElement);
  const status = byId('live-status');
  let client: Client | null = null;

  const log = (text: string) => events.prepend(el('li', {}, `${new Date().toLocaleTimeString()} ${text}`));

  const subscribe = <T>(query: string, variables: Record<string, unknown>, onData: (data: T) => void) =>
    client!.subscribe<T>(
      { query, variables },
      {
        next: (result) => {
          if (result.data) onData(result.data as T);
          else if (result.errors?.length) say(status, result.errors[0]!.message, true);
        },
        error: (err: unknown) =>
          say(status, `Subscription ended: ${err instanceof Error ? err.message : 'the connection closed'}`, true),
        complete: () => undefined,
      },
    );

  const connect = () => {
    if (client) return;
    const url = new URL('/graphql', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    client = createClient({
      url: url.href,
      connectionParams: async () => ({ authorization: `Bearer ${await token()}` }),
      retryAttempts: 5,
      on: {
        connected: () => say(status, 'Connected: new posts and comments appear below as they happen.'),
        closed: () => say(status, 'Live connection closed; it reconnects when needed.'),
      },
    });
    subscribe<{ onPostCreated: PostEvent }>(POST_CREATED, {}, ({ onPostCreated: post }) =>
      log(`post created: “${post.title}” by ${post.author.name}`),
    );
  };

  const postRow = (post: { id: string; title: string }) => {
    const input = el('input', { id: `comment-${post.id}`, required: '', maxlength: '10000' });
    const commentForm = el(
      'form',
      { class: 'row' },
      el('label', { for: input.id }, 'Comment'),
      input,
      el('button', { type: 'submit' }, 'Add comment'),
    );
    commentForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(submitButton(commentForm), status, async () => {
        await api.graphql(CREATE_COMMENT, { input: { postId: post.id, content: input.value } });
        commentForm.reset();
      });
    });
    subscribe<{ onCommentAdded: CommentEvent }>(COMMENT_ADDED, { postId: post.id }, ({ onCommentAdded: comment }) =>
      log(`comment on “${post.title}” by ${comment.author.name}: ${comment.content}`),
    );
    return el('li', { 'data-post-id': post.id }, el('strong', {}, post.title), commentForm);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(submitButton(form), status, async () => {
      connect();
      const data = new FormData(form);
      const { createPost } = await api.graphql<{
        createPost: {
          success: boolean;
          message: string | null;
          errors: { field: string; message: string }[] | null;
          post: { id: string; title: string } | null;
        };
      }>(CREATE_POST, { input: { title: data.get('title'), content: data.get('content'), status: 'PUBLISHED' } });
      if (!createPost.success || !createPost.post) {
        throw new Error(
          createPost.errors?.map((e) => `${e.field}: ${e.message}`).join('; ') ||
            createPost.message ||
            'The post was not created.',
        );
      }
      posts.prepend(postRow(createPost.post));
      form.reset();
    });
  });

  return { connect, close: () => void client?.dispose() };
}
