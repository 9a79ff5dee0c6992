import { z } from 'zod/v4';

const NOT_A_TAXON = 'This value should be a slug string or an object with a slug.';
const LENGTH = 'This value should have 1 to 50 characters.';

/** What a slug keeps of a name: letters and digits once accents are taken off (content's `slugify`). */
const hasLetterOrDigit = (name: string) =>
  /[a-z0-9]/.test(
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase(),
  );

/**
 * A category or tag as a client names it: a name or slug, or an object holding one (`slug` first, then
 * `name`; other properties are ignored). Parsed to the name as given, trimmed; content makes the slug.
 */
export const taxonInput = z
  .union(
    [z.string(), z.looseObject({ slug: z.string() }), z.looseObject({ slug: z.null().optional(), name: z.string() })],
    { error: NOT_A_TAXON },
  )
  .transform((taxon) => (typeof taxon === 'string' ? taxon : (taxon.slug ?? taxon.name)))
  .pipe(
    z
      .string()
      .trim()
      .min(1, { error: LENGTH })
      .max(50, { error: LENGTH })
      .refine(hasLetterOrDigit, { error: 'This value should contain letters or digits.' }),
  )
  .meta({ description: '1 to 50 characters with a letter or digit; names become slugs.' });

/** A category or tag as the API shows it. */
export const Taxon = z.strictObject({ slug: z.string(), name: z.string() });
