import type { PostDoc } from '../models';

type PostField = keyof PostDoc;

/**
 * The stored fields each `Post` field of the schema reads, beyond those every listed post carries
 * (`ALWAYS`). A field missing here (one added to the schema later) makes the read take whole documents.
 */
const READS: Readonly<Record<string, readonly PostField[]>> = {
  __typename: [],
  id: [],
  title: ['title'],
  content: ['content'],
  excerpt: ['excerpt'],
  status: [],
  author: [],
  comments: [],
  tags: ['tags'],
  viewCount: ['viewCount'],
  createdAt: [],
  publishedAt: ['publishedAt'],
  updatedAt: ['updatedAt'],
};

/**
 * What visibility (status, author), the comments of a post (its id) and page cursors (the sort
 * field and the id) need whatever is selected.
 */
const ALWAYS: readonly PostField[] = ['_id', 'status', 'author', 'createdAt'];

/**
 * The MongoDB projection for a page of posts whose nodes select `selected`, sorted by `sortField`:
 * a list of titles reads no post bodies, and the cached page stores none. Null (whole documents)
 * when the selection is unknown or names a field this table does not know.
 */
export function postProjection(selected: ReadonlySet<string> | null, sortField: string): Record<string, 1> | null {
  if (selected === null) return null;
  const projection: Record<string, 1> = { [sortField]: 1 };
  for (const field of ALWAYS) projection[field] = 1;
  for (const name of selected) {
    const reads = READS[name];
    if (!reads) return null;
    for (const field of reads) projection[field] = 1;
  }
  return projection;
}
