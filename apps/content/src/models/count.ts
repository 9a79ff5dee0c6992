import type { FilterQuery, Model } from 'mongoose';

/**
 * `countDocuments`, always through an index: a filter with conditions finds its own, and an empty
 * one (every document) is hinted to the `_id` index, whose keys are counted without reading a
 * document; the planner would otherwise scan the collection.
 */
export function countAll<T>(model: Model<T>, filter: FilterQuery<T>): Promise<number> {
  const query = model.countDocuments(filter);
  return Object.keys(filter).length === 0 ? query.hint({ _id: 1 }).exec() : query.exec();
}

/**
 * The conjunction of `clauses`, without the empty ones (an empty `$and` member hides an empty filter
 * from `countAll`). A disjunction of plain equalities (a user's visibility: published, or mine) has
 * the other clauses distributed into its branches, `(a ∨ b) ∧ c` → `(a ∧ c) ∨ (b ∧ c)`: each branch
 * then reads its own index in sort order and the planner merges them, where `$and: [$or, …]` can end
 * in reading every branch and sorting the union in memory.
 */
export function allOf<T>(...clauses: FilterQuery<T>[]): FilterQuery<T> {
  const kept = clauses.filter((c) => Object.keys(c).length > 0);
  if (kept.length === 0) return {};
  if (kept.length === 1) return kept[0]!;
  const disjunction = kept.find(isEqualityDisjunction);
  if (disjunction) {
    const rest = kept.filter((c) => c !== disjunction);
    return { $or: (disjunction.$or as FilterQuery<T>[]).map((branch) => allOf<T>(branch, ...rest)) } as FilterQuery<T>;
  }
  return { $and: kept } as FilterQuery<T>;
}

function isEqualityDisjunction(clause: Record<string, unknown>): boolean {
  const branches = clause.$or;
  return (
    Object.keys(clause).length === 1 &&
    Array.isArray(branches) &&
    branches.every(
      (b: unknown) =>
        typeof b === 'object' &&
        b !== null &&
        Object.values(b).every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v)),
    )
  );
}
