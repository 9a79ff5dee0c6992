import { z } from 'zod/v4';

/**
 * Keyset paging of the admin lists: `limit` (1–100, default 20) and an opaque `cursor` (the last item's key,
 * base64url) from the previous page's `next_cursor`, which is null on the last page.
 */
export const adminPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/)
    .optional()
    .meta({ description: 'The previous page’s `next_cursor`.' }),
});

/** `GET /admin/accounts?email=`: the accounts whose (normalised) email starts with it. */
export const adminAccountEmailFilter = z
  .string()
  .trim()
  .min(1)
  .max(254)
  .meta({ description: 'Only emails starting with this.' });
