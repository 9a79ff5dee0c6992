/** URL slug from a title: lower-case ASCII words joined by dashes, never empty, at most 200 chars. */
export function slugify(text: string, fallback = 'post'): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200)
    .replace(/-+$/g, '');
  return slug.length > 0 ? slug : fallback;
}
