import { toGlobalId } from '@platform/graphql-schema';
import { createComment, deleteComment, updateComment } from '../../comments/comment-writes';
import { DomainError, notFoundError, validationError } from '../../domain/domain-errors';
import { createPost, deletePost, findPost, updatePost } from '../../posts/post-writes';
import { canSeePost } from '../../posts/post-reads';
import { createProfile, deleteProfile, updateProfile } from '../../users/profiles';
import { failurePayload, toGraphQLError } from '../graphql-errors';
import { localId, localNumericId } from '../ids';
import type { MutationResolvers } from './resolver-types.generated';

/**
 * Mutations. Those returning a payload never throw for validation or permission failures:
 * a DomainError becomes `{success: false, message, errors}`. The comment mutations return the
 * Comment itself (the schema says `Comment!`), so their failures are top-level errors with `extensions.code`.
 */
async function payload<T extends object>(work: () => Promise<T>): Promise<T | ReturnType<typeof failurePayload>> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError) return failurePayload(err);
    throw err;
  }
}

async function orThrow<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toGraphQLError(err);
  }
}

function postIdOf(id: string): number {
  const local = localNumericId(id, 'Post');
  if (local === null) throw notFoundError('Post');
  return local;
}

function commentIdOf(id: string): number {
  const local = localNumericId(id, 'Comment');
  if (local === null) throw notFoundError('Comment');
  return local;
}

function tagsOf(tags: string[] | null | undefined): string[] | undefined {
  return tags === null || tags === undefined ? undefined : [...new Set(tags)].slice(0, 20);
}

export const mutationResolvers: MutationResolvers = {
  createUser: (_, args, ctx) =>
    payload(async () => {
      const { name, email, password } = args.input;
      const role = args.input.role ?? 'USER';
      if (role === 'GUEST') throw validationError({ 'input.role': 'GUEST cannot be assigned.' });
      const created = await ctx.deps.auth.createAccount({ name, email: email.toLowerCase(), password });
      if (!created.ok) {
        if (created.status === 409)
          throw new DomainError('conflict', 'Email already in use', { 'input.email': 'This email is already used.' });
        // auth's field messages (a common password, one equal to the email or name), as REST registration answers them.
        const fields = created.status === 400 ? created.body.fields : undefined;
        if (typeof fields === 'object' && fields !== null)
          throw validationError(Object.fromEntries(Object.entries(fields).map(([k, v]) => [`input.${k}`, String(v)])));
        throw validationError({ input: 'The authorization service rejected this account.' });
      }
      let account = created.value;
      if (role !== 'USER') {
        const updated = await ctx.deps.auth.updateAccount(account.id, { roles: [role] });
        if (updated.ok) account = updated.value;
      }
      const user = await createProfile(ctx.deps, { ...account, roles: [role] });
      return { success: true, message: 'User created', user, errors: [] };
    }),

  updateUser: (_, args, ctx) =>
    payload(async () => {
      const id = localId(args.id, 'User');
      if (id === null) throw notFoundError('User');
      const { name, email, avatar, status } = args.input;
      if (status === 'DELETED') throw validationError({ 'input.status': 'Use deleteUser to delete a user.' });
      const user = await updateProfile(ctx.deps, ctx.caller, id, {
        ...(name != null ? { name } : {}),
        ...(email != null ? { email } : {}),
        ...(avatar !== undefined ? { avatar } : {}),
        ...(status != null ? { status } : {}),
      });
      return { success: true, message: 'User updated', user, errors: [] };
    }),

  deleteUser: (_, args, ctx) =>
    payload(async () => {
      const id = localId(args.id, 'User');
      if (id === null) throw notFoundError('User');
      await deleteProfile(ctx.deps, ctx.caller, id);
      return { success: true, message: 'User deleted', deletedId: toGlobalId('User', id) };
    }),

  createPost: (_, args, ctx) =>
    payload(async () => {
      const { title, content, excerpt, status, tags } = args.input;
      if (status === 'DELETED') throw validationError({ 'input.status': 'Use deletePost to delete a post.' });
      const fields = {
        title: title.trim(),
        content,
        excerpt: excerpt ?? null,
        status: status ?? 'DRAFT',
        category: null,
        tags: tagsOf(tags) ?? [],
      };
      // The author's profile through the user memo, under the request's `User` version.
      const { post } = await createPost(ctx.deps, ctx.caller, fields, undefined, ctx.userVersion?.get());
      return { success: true, message: 'Post created', post, errors: [] };
    }),

  updatePost: (_, args, ctx) =>
    payload(async () => {
      const id = postIdOf(args.id);
      const existing = await findPost(ctx.deps, id);
      if (!existing || !canSeePost(ctx.caller, existing)) throw notFoundError('Post');
      const { title, content, excerpt, status, tags } = args.input;
      if (status === 'DELETED') throw validationError({ 'input.status': 'Use deletePost to delete a post.' });
      const { post } = await updatePost(ctx.deps, ctx.caller, id, {
        ...(title != null ? { title: title.trim() } : {}),
        ...(content != null ? { content } : {}),
        ...(excerpt !== undefined ? { excerpt } : {}),
        ...(status != null ? { status } : {}),
        ...(tags != null ? { tags: tagsOf(tags) } : {}),
      });
      return { success: true, message: 'Post updated', post, errors: [] };
    }),

  deletePost: (_, args, ctx) =>
    payload(async () => {
      const id = postIdOf(args.id);
      const existing = await findPost(ctx.deps, id);
      if (!existing || !canSeePost(ctx.caller, existing)) throw notFoundError('Post');
      await deletePost(ctx.deps, ctx.caller, id);
      return { success: true, message: 'Post deleted', deletedId: toGlobalId('Post', id) };
    }),

  createComment: (_, args, ctx) =>
    orThrow(async () => {
      const postId = localNumericId(args.input.postId, 'Post');
      if (postId === null) throw new DomainError('not_found', 'Post not found', { 'input.postId': 'Post not found.' });
      let parentId: number | null = null;
      if (args.input.parentId != null) {
        parentId = localNumericId(args.input.parentId, 'Comment');
        if (parentId === null) throw validationError({ 'input.parentId': 'Parent comment not found on this post.' });
      }
      return createComment(ctx.deps, ctx.caller, { content: args.input.content, postId, parentId });
    }),

  updateComment: (_, args, ctx) =>
    orThrow(() => updateComment(ctx.deps, ctx.caller, commentIdOf(args.id), args.input.content)),

  deleteComment: (_, args, ctx) =>
    payload(async () => {
      const id = commentIdOf(args.id);
      await deleteComment(ctx.deps, ctx.caller, id);
      return { success: true, message: 'Comment deleted', deletedId: toGlobalId('Comment', id) };
    }),
};
