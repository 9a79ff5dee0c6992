import { Router, type Request, type Response } from 'express';
import { ContentHttpError, ContentValidationError } from '../http/rest-errors';
import type { TokenResponse } from '../auth-client/auth-client';
import type { ContentDeps } from '../domain/deps';
import { Login, Refresh, Registration } from '@platform/contracts';
import { parseBody } from '../http/parse-request';
import { callerOf } from '../identity/identity-middleware';
import { createProfile } from './profiles';
import { renderUser } from './rest-user-view';

/**
 * `/auth/*`: public (any identity, anonymous included). Credentials go to auth's internal
 * endpoints; content keeps only the profile.
 *
 * Login and refresh answer the same shape (the content API does not show refresh):
 * `{token, refresh_token, token_type, expires_in, refresh_expires_in, user}`; refresh takes
 * `{refresh_token}` and rotates it.
 */
function tokenBody(tokens: TokenResponse, user: ReturnType<typeof renderUser>) {
  return {
    token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    token_type: tokens.token_type ?? 'Bearer',
    expires_in: tokens.expires_in,
    refresh_expires_in: tokens.refresh_expires_in,
    user,
  };
}

export function authRoutes(deps: ContentDeps): Router {
  const router = Router();

  router.post('/auth/register', async (req: Request, res: Response) => {
    const { name, email, password } = parseBody(Registration, req.body);
    const result = await deps.auth.createAccount({ name, email: email.toLowerCase(), password });
    if (!result.ok) {
      if (result.status === 409) throw new ContentValidationError({ email: 'This email is already used.' });
      const fields = result.body.fields;
      if (result.status === 400 && typeof fields === 'object' && fields !== null) {
        throw new ContentValidationError(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])));
      }
      throw new ContentHttpError(502, 'Registration failed at the authorization service');
    }
    const user = await createProfile(deps, result.value);
    res.status(201).json({ message: 'User registered successfully', user: renderUser(user, 'self') });
  });

  router.post('/auth/login', async (req: Request, res: Response) => {
    const { email, password } = parseBody(Login, req.body);
    const result = await deps.auth.login({
      email: email.toLowerCase(),
      password,
      client_address: callerOf(res).address,
    });
    if (!result.ok && result.status === 429) {
      // auth's brute-force limit: the same answer whether or not the account exists.
      res.setHeader('Retry-After', String(result.retryAfter ?? 1));
      throw new ContentHttpError(429, 'Too many sign-in attempts; retry later.');
    }
    if (!result.ok) throw new ContentHttpError(401, 'Invalid credentials.');
    const user = await createProfile(deps, result.value.account);
    res.json(tokenBody(result.value, renderUser(user, 'self')));
  });

  router.post('/auth/refresh', async (req: Request, res: Response) => {
    const { refresh_token: refreshToken } = parseBody(Refresh, req.body);
    const result = await deps.auth.refresh(refreshToken);
    if (!result.ok) throw new ContentHttpError(401, 'Invalid or expired refresh token.');
    const user = await createProfile(deps, result.value.account);
    res.json(tokenBody(result.value, renderUser(user, 'self')));
  });

  return router;
}
