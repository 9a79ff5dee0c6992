import { toGlobalId } from '@platform/graphql-schema';
import { canSeeComment, visibleCommentsFilter } from '../../comments/comment-reads';
import type { CommentDoc, PostDoc } from '../../models';
import { canSeePost, visiblePosts } from '../../posts/post-reads';
import { canReadEmail } from '../../users/email-visibility';
import { emptyConnection, paginate, type Connection } from '../connections';
import type { GraphQLContext } from '../context';
import { gqlError } from '../graphql-errors';
import { selectsField } from '../selection';
import type { Resolvers } from './resolver-types.generated';

/** Field resolvers of User, Post, Comment, the Node interface and the SearchResult union. */

export type LazyConnection<T> = {
  edges: () => Promise<Connection<T>['edges']>;
  pageInfo: () => Promise<Connection<T>['pageInfo']>;
  totalCount: () => Promise<number>;
};

/** A nested connection that runs its page query only if edges/pageInfo are selected, and counts through a loader. */
function lazyConnection<T>(page: () => Promise<Connection<T>>, count: () => Promise<number>): LazyConnection<T> {
  let memo: Promise<Connection<T>> | undefined;
  const get = () => (memo ??= page());
  return { edges: async () => (await get()).edges, pageInfo: async () => (await get()).pageInfo, totalCount: count };
}

const createdAsc = { field: 'createdAt', direction: 1 as const };

const emptyLazy = <T>(): LazyConnection<T> =>
  lazyConnection(
    async () => emptyConnection<T>(),
    async () => 0,
  );

/** `comment` if the caller may see it (comments/comment-reads.ts), else null: every lookup of a comment goes through here. */
export async function shownComment(ctx: GraphQLContext, comment: CommentDoc | null): Promise<CommentDoc | null> {
  if (!comment) return null;
  return canSeeComment(ctx.caller, await ctx.loaders.post.load(comment.post)) ? comment : null;
}

function nodeTypeOf(value: object): 'User' | 'Post' | 'Comment' | null {
  if ('title' in value) return 'Post';
  if ('email' in value || 'nameLower' in value) return 'User';
  if ('post' in value && 'content' in value) return 'Comment';
  return null;
}

export const typeResolvers: Pick<Resolvers, 'Node' | 'SearchResult' | 'User' | 'Post' | 'Comment'> = {
  Node: { __resolveType: (value) => nodeTypeOf(value) },
  SearchResult: { __resolveType: (value) => nodeTypeOf(value) },

  User: {
    id: (user) => toGlobalId('User', user._id),
    email: (user, _, ctx) => (canReadEmail(ctx.caller, user._id) ? user.email : null),
    avatar: (user) => user.avatar ?? null,
    posts: (user, args, ctx, info) => {
      const filter = visiblePosts(ctx.caller, { author: user._id, status: args.status });
      if (!filter) return emptyConnection<PostDoc>();
      return paginate(ctx.deps.models.posts, filter, { field: 'createdAt', direction: -1 }, args, {
        cursors: ctx.cursors,
        lazyCount: !selectsField(info, 'totalCount'),
      });
    },
    // A user's comments span posts, some of which the caller may not see: the page and its count leave their comments out.
    comments: async (user, args, ctx, info) =>
      paginate(
        ctx.deps.models.comments,
        await visibleCommentsFilter(ctx.deps, ctx.caller, { author: user._id }),
        createdAsc,
        args,
        {
          cursors: ctx.cursors,
          lazyCount: !selectsField(info, 'totalCount'),
        },
      ),
  },

  Post: {
    id: (post) => toGlobalId('Post', post._id),
    excerpt: (post) => post.excerpt ?? null,
    author: async (post, _, ctx) => {
      const author = await ctx.loaders.user.load(post.author);
      if (!author) throw gqlError('NOT_FOUND', 'Author not found');
      return author;
    },
    // A post reaches the caller only if visible; checked again here so that no path can list or count comments the rule hides.
    comments: (post, args, ctx) =>
      canSeeComment(ctx.caller, post)
        ? lazyConnection(
            () =>
              paginate(ctx.deps.models.comments, { post: post._id }, createdAsc, args, {
                cursors: ctx.cursors,
                lazyCount: true,
              }),
            () => ctx.loaders.commentCount.load(`post:${post._id}`),
          )
        : emptyLazy<CommentDoc>(),
  },

  Comment: {
    id: (comment) => toGlobalId('Comment', comment._id),
    author: async (comment, _, ctx) => {
      const author = await ctx.loaders.user.load(comment.author);
      if (!author) throw gqlError('NOT_FOUND', 'Author not found');
      return author;
    },
    post: async (comment, _, ctx) => {
      const post = await ctx.loaders.post.load(comment.post);
      if (!post || !canSeePost(ctx.caller, post)) throw gqlError('NOT_FOUND', 'Post not found');
      return post;
    },
    parent: async (comment, _, ctx) =>
      comment.parent === null ? null : shownComment(ctx, await ctx.loaders.comment.load(comment.parent)),
    // Replies are on the comment's post: visible with it, or not at all.
    replies: async (comment, args, ctx) =>
      (await shownComment(ctx, comment))
        ? lazyConnection(
            () =>
              paginate(ctx.deps.models.comments, { parent: comment._id }, createdAsc, args, {
                cursors: ctx.cursors,
                lazyCount: true,
              }),
            () => ctx.loaders.commentCount.load(`parent:${comment._id}`),
          )
        : emptyLazy<CommentDoc>(),
  },
};
