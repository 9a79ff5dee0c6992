import { PostId, PostListQuery } from '@platform/contracts';
import { Router, type Request, type Response } from 'express';
import type { ContentDeps } from '../domain/deps';
import { notFoundError } from '../domain/domain-errors';
import { requireAuthenticated } from '../http/rest-guards';
import { parseQuery } from '../http/parse-request';
import { callerOf } from '../identity/identity-middleware';
import { createPost, deletePost, findPost, updatePost } from './post-writes';
import { canSeePost, countView, listPublished } from './post-reads';
import { renderPost, renderPosts } from './rest-post-view';
import { mergeFields, parseRestPostBody, replacementFields } from './rest-post-input';
import { slugify } from './slug';

/** Post ids are positive integers (PostId); anything else cannot name a post, so it is a 404 like a missing one. */
function postId(req: Request): number {
  const id = PostId.safeParse(req.params.id);
  if (!id.success) throw notFoundError('Post');
  return id.data;
}

export function postRoutes(deps: ContentDeps): Router {
  const router = Router();

  router.get('/posts', async (req: Request, res: Response) => {
    requireAuthenticated(callerOf(res), 'read');
    const { page, limit, category, tag } = parseQuery(PostListQuery, req.query);
    // Asked beside the page's queries: the authors then come from the user memo with no round trip of their own.
    const userVersion = deps.users?.version();
    const { posts, total } = await listPublished(deps, {
      page,
      limit,
      ...(category !== undefined ? { category: slugify(category, '-') } : {}),
      ...(tag !== undefined ? { tag: slugify(tag, '-') } : {}),
    });
    res.json({
      data: await renderPosts(deps, posts, userVersion),
      meta: { total, page, limit, pages: Math.ceil(total / limit) },
    });
  });

  router.post('/posts', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'write');
    const input = parseRestPostBody(req.body, 'create');
    const fields = replacementFields(input);
    // One read of the `User` version for the author's profile and the rendering (cache/user-memo.ts).
    const userVersion = deps.users?.version();
    const { post } = await createPost(
      deps,
      caller,
      {
        title: fields.title!,
        content: fields.content!,
        excerpt: null,
        status: fields.published ? 'PUBLISHED' : 'DRAFT',
        category: fields.category ?? null,
        tags: fields.tags ?? [],
      },
      input.names,
      userVersion,
    );
    res.status(201).json(await renderPost(deps, post, userVersion));
  });

  router.get('/posts/:id', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'read');
    const id = postId(req);
    const post = await findPost(deps, id);
    if (!post || !canSeePost(caller, post)) throw notFoundError('Post');
    await countView(deps, id);
    res.json(await renderPost(deps, { ...post, viewCount: post.viewCount + 1 }));
  });

  const update = (mode: 'replace' | 'merge') => async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'write');
    const id = postId(req);
    const existing = await findPost(deps, id);
    if (!existing || !canSeePost(caller, existing)) throw notFoundError('Post');
    const input = parseRestPostBody(req.body, mode);
    const changes = mode === 'replace' ? replacementFields(input) : mergeFields(input);
    const { post } = await updatePost(deps, caller, id, changes, input.names);
    res.json(await renderPost(deps, post));
  };
  router.put('/posts/:id', update('replace'));
  router.patch('/posts/:id', update('merge'));

  router.delete('/posts/:id', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'write');
    const id = postId(req);
    const existing = await findPost(deps, id);
    if (!existing || !canSeePost(caller, existing)) throw notFoundError('Post');
    await deletePost(deps, caller, id);
    res.status(204).end();
  });

  return router;
}
