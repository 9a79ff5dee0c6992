// The floor for bench/content: a bare express + mongoose server doing the same reads as content's
// GET /api/v1/posts?limit=20 (published posts newest first, their count, their authors' names) and
// as the GraphQL `posts(first: 20) { edges { node { title author { name } } } }` (the caller's visible posts + authors),
// with no identity check, validation, logging, cache or framework on top.
import express from 'express';
import mongoose from 'mongoose';

const { MONGO_URL, MONGO_DB, PORT } = process.env;
const connection = mongoose.createConnection(MONGO_URL, { dbName: MONGO_DB });
await connection.asPromise();
const posts = connection.collection('posts');
const users = connection.collection('users');

// The REST list shows published posts; the GraphQL list shows a signed-in caller (`x-caller`) their
// own drafts too, as content's does (visiblePosts): the same filter, so mongod does the same work.
async function page(withCount, caller) {
  const filter = caller ? { $or: [{ status: 'PUBLISHED' }, { author: caller }] } : { published: true };
  const [rows, total] = await Promise.all([
    posts.find(filter).sort({ createdAt: -1, _id: -1 }).limit(20).toArray(),
    withCount ? posts.countDocuments(filter) : Promise.resolve(null),
  ]);
  const authors = await users
    .find({ _id: { $in: [...new Set(rows.map((p) => p.author))] } }, { projection: { name: 1 } })
    .toArray();
  const names = new Map(authors.map((a) => [a._id, a.name]));
  return { rows, total, names };
}

const app = express();
app.get('/posts', async (_req, res) => {
  const { rows, total, names } = await page(true);
  res.json({
    data: rows.map((p) => ({
      id: p._id,
      title: p.title,
      slug: p.slug,
      content: p.content,
      published: p.published,
      createdAt: p.createdAt,
      author_name: names.get(p.author),
    })),
    meta: { total, page: 1, limit: 20, pages: Math.ceil(total / 20) },
  });
});
app.post('/graphql-equivalent', async (req, res) => {
  const caller = req.headers['x-caller'];
  const { rows, names } = await page(false, typeof caller === 'string' ? caller : undefined);
  res.json({
    data: { posts: { edges: rows.map((p) => ({ node: { title: p.title, author: { name: names.get(p.author) } } })) } },
  });
});
app.listen(Number(PORT), '127.0.0.1');
