import type { FilterQuery } from 'mongoose';
import { GraphQLErrorCode } from '@platform/errors';
import type { GraphQLTypes } from '@platform/events';
import { fromGlobalId } from '@platform/graphql-schema';
import { canReadEveryEmail } from '../../users/email-visibility';
import { ensureProfile } from '../../users/profiles';
import { canSeePost, visiblePosts } from '../../posts/post-reads';
import type { PostDoc, UserDoc, POST_ORDERS, USER_ORDERS } from '../../models';
import { emptyConnection, paginate, type SortSpec } from '../connections';
import type { GraphQLContext } from '../context';
import { localId, localNumericId } from '../ids';
import { escapeRegExp } from '@platform/stores';
import { search } from './search';
import { gqlError, toGraphQLError } from '../graphql-errors';
import { selectedNodeFields, selectsCursors, selectsField } from '../selection';
import { postProjection } from '../post-projection';
import { allOf } from '../../models/count';
import type { QueryResolvers } from './resolver-types.generated';
import { shownComment } from './type-resolvers';

// Each of these fields has its indexes (models/user-model.ts, models/post-model.ts).
const USER_ORDER: Record<GraphQLTypes.UserOrderField, (typeof USER_ORDERS)[number]> = {
  NAME: 'nameLower',
  EMAIL: 'email',
  CREATED_AT: 'createdAt',
  UPDATED_AT: 'updatedAtSort',
};
const POST_ORDER: Record<GraphQLTypes.PostOrderField, (typeof POST_ORDERS)[number]> = {
  TITLE: 'titleLower',
  CREATED_AT: 'createdAt',
  PUBLISHED_AT: 'publishedAtSort',
  VIEW_COUNT: 'viewCount',
};

function sortOf<F extends string>(
  orderBy: { field: F; direction: GraphQLTypes.SortOrder } | null | undefined,
  fields: Record<F, string>,
  fallback: SortSpec,
): SortSpec {
  if (!orderBy) return fallback;
  return { field: fields[orderBy.field] ?? fallback.field, direction: orderBy.direction === 'ASC' ? 1 : -1 };
}

async function loadPost(ctx: GraphQLContext, id: string): Promise<PostDoc | null> {
  const local = localNumericId(id, 'Post');
  if (local === null) return null;
  const post = await ctx.loaders.post.load(local);
  return post && canSeePost(ctx.caller, post) ? post : null;
}

async function loadComment(ctx: GraphQLContext, id: string) {
  const local = localNumericId(id, 'Comment');
  return local === null ? null : shownComment(ctx, await ctx.loaders.comment.load(local));
}

async function loadUser(ctx: GraphQLContext, id: string): Promise<UserDoc | null> {
  const local = localId(id, 'User');
  return local === null ? null : ctx.loaders.user.load(local);
}

export const queryResolvers: QueryResolvers = {
  me: async (_, __, ctx) => {
    try {
      return await ensureProfile(ctx.deps, ctx.caller);
    } catch (err) {
      throw toGraphQLError(err);
    }
  },
  user: (_, args, ctx) => loadUser(ctx, args.id),
  users: (_, args, ctx, info) => {
    // An order is as revealing as the values it sorts by (a page of users by email, around one's own, tells whose email is near it).
    if (args.orderBy?.field === 'EMAIL' && !canReadEveryEmail(ctx.caller)) {
      throw gqlError(
        GraphQLErrorCode.FORBIDDEN,
        'Ordering users by EMAIL requires the ADMIN role (only admins may read other users’ emails)',
      );
    }
    const filter: FilterQuery<UserDoc> = {};
    if (args.filter?.status) filter.status = args.filter.status;
    if (args.filter?.role) filter.role = args.filter.role;
    if (args.filter?.search) filter.nameLower = { $regex: escapeRegExp(args.filter.search.toLowerCase()) };
    return paginate(
      ctx.deps.models.users,
      filter,
      sortOf(args.orderBy, USER_ORDER, { field: 'createdAt', direction: -1 }),
      args,
      {
        cursors: ctx.cursors,
        lazyCount: !selectsField(info, 'totalCount'),
        sealCursors: selectsCursors(info),
      },
    );
  },
  post: (_, args, ctx) => loadPost(ctx, args.id),
  posts: (_, args, ctx, info) => {
    const author = args.filter?.authorId ? (localId(args.filter.authorId, 'User') ?? '\u0000') : undefined;
    const visible = visiblePosts(ctx.caller, { author, status: args.filter?.status });
    if (!visible) return emptyConnection<PostDoc>();
    const and: FilterQuery<PostDoc>[] = [visible];
    if (args.filter?.search) {
      const re = { $regex: escapeRegExp(args.filter.search), $options: 'i' };
      and.push({ $or: [{ title: re }, { content: re }] });
    }
    const sort = sortOf(args.orderBy, POST_ORDER, { field: 'createdAt', direction: -1 });
    return paginate(ctx.deps.models.posts, allOf(...and), sort, args, {
      cursors: ctx.cursors,
      projection: postProjection(selectedNodeFields(info), sort.field) ?? undefined,
      lazyCount: !selectsField(info, 'totalCount'),
      sealCursors: selectsCursors(info),
    });
  },
  comment: (_, args, ctx) => loadComment(ctx, args.id),
  search: (_, args, ctx) => search(ctx.deps, ctx.caller, args.query, args.type ?? 'ALL', args.limit ?? 10),
  node: async (_, args, ctx) => {
    const global = fromGlobalId(args.id);
    if (!global) return null;
    if (global.type === 'User') return loadUser(ctx, args.id);
    if (global.type === 'Post') return loadPost(ctx, args.id);
    return loadComment(ctx, args.id);
  },
};
