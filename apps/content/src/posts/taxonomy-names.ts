import type { TaxonomyModel } from '../models/taxonomy-models';

/** Most names remembered per collection (a slug's name is a few dozen bytes). */
const MAX_REMEMBERED = 10_000;

const remembered = new WeakMap<TaxonomyModel, Map<string, string>>();

/**
 * Names of categories or tags by slug. A name is written once, by the post write that first uses
 * its slug (`$setOnInsert`), and never changed or removed, so a name once read stays true and is
 * kept in memory; only slugs not read before are queried (one `$in`), and a slug with no document
 * yet is asked again next time (it may be created meanwhile).
 */
export async function taxonomyNames(model: TaxonomyModel, slugs: readonly string[]): Promise<Map<string, string>> {
  let known = remembered.get(model);
  if (!known) remembered.set(model, (known = new Map()));
  const names = new Map<string, string>();
  const unknown: string[] = [];
  for (const slug of slugs) {
    const name = known.get(slug);
    if (name === undefined) unknown.push(slug);
    else names.set(slug, name);
  }
  if (unknown.length === 0) return names;
  for (const doc of await model.find({ _id: { $in: unknown } }).lean()) {
    names.set(doc._id, doc.name);
    if (known.size < MAX_REMEMBERED) known.set(doc._id, doc.name);
  }
  return names;
}
