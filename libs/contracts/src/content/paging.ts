import { z } from 'zod/v4';

/**
 * Paging of the list operations (`?page=&limit=`). A query value arrives as text: digits only (no sign,
 * exponent or spaces), "" or absent for the default; a repeated key (an array) is not a number's text.
 */
export const queryInteger = (max: number, fallback: number) =>
  z.preprocess(
    (value) =>
      value === '' ? undefined : typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value,
    z
      .int({
        error: (issue) =>
          typeof issue.input === 'string'
            ? 'This value should be a positive integer.'
            : 'This value should be of type string.',
      })
      .min(1, { error: 'This value should be a positive integer.' })
      .max(max, { error: `This value should be ${max} or less.` })
      .default(fallback),
  );

/** Lists answer at most this many items per page. */
export const MAX_PAGE_SIZE = 100;
export const pageNumber = queryInteger(1_000_000, 1).meta({ description: 'From 1.' });
export const pageSize = queryInteger(MAX_PAGE_SIZE, 10).meta({ description: 'Items per page.' });

export const PageMeta = z.strictObject({
  total: z.int().min(0),
  page: z.int().min(1),
  limit: z.int().min(1).max(MAX_PAGE_SIZE),
  pages: z.int().min(0).meta({ description: 'ceil(total / limit)' }),
});
export type PageMeta = z.output<typeof PageMeta>;

/** One page of a list: the items and where the page sits. */
export const pageOf = <T extends z.ZodType>(item: T) => z.strictObject({ data: z.array(item), meta: PageMeta });
