import { z } from 'zod/v4';

// Auth's internal sign-in endpoints (docs/architecture.md "Internal endpoints of auth"), which content and the
// gateway call with the internal secret; not in the public document.

/**
 * `POST /internal/login`. `client_address`: the end user's address as the calling service saw it (content's
 * REST login), for the per-address sign-in limit; without it the caller's own address is used.
 */
export const internalLogin = z.object({
  email: z.string().max(254),
  password: z.string().max(256),
  client_address: z.string().min(1).max(100).optional(),
});

/** `POST /internal/login-locks/unlock`: an administrator lifts the sign-in limits of an email, an address, or both. */
export const internalLoginUnlock = z
  .object({ email: z.string().min(1).max(254).optional(), address: z.string().min(1).max(100).optional() })
  .strict()
  .refine((v) => v.email !== undefined || v.address !== undefined, 'email or address is required');

/** `POST /internal/refresh`: a first-party sign-in's refresh token. */
export const internalRefresh = z.object({ refresh_token: z.string().min(1).max(200) });
