import { Router, type Request, type Response } from 'express';
import { ContentHttpError, ContentValidationError } from '../http/rest-errors';
import type { TokenResponse } from '../auth-client/auth-client';
import type { ContentDeps } from '../domain/deps';
import { isEmail, Problems, readString, rejectUnknown, requireObjectBody } from '../http/validate';
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
const NONE: ReadonlySet<string> = new Set();

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
    const body = requireObjectBody(req.body);
    const problems = new Problems();
    rejectUnknown(problems, body, new Set(['name', 'email', 'password']), NONE);
    const name = readString(problems, body, 'name', { required: true, max: 100 });
    const email = readString(problems, body, 'email', { required: true, max: 320 });
    if (email !== undefined && !isEmail(email)) problems.add('email', 'This value is not a valid email address.');
    const password = readString(problems, body, 'password', { required: true, min: 8, max: 128, trim: false });
    problems.throwIfAny();
    const result = await deps.auth.createAccount({ name: name!, email: email!.toLowerCase(), password: password! });
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
    const body = requireObjectBody(req.body);
    const problems = new Problems();
    rejectUnknown(problems, body, new Set(['email', 'password']), NONE);
    const email = readString(problems, body, 'email', { required: true, max: 320 });
    const password = readString(problems, body, 'password', { required: true, max: 128, trim: false });
    problems.throwIfAny();
    const result = await deps.auth.login({
      email: email!.toLowerCase(),
      password: password!,
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
    const body = requireObjectBody(req.body);
    const problems = new Problems();
    rejectUnknown(problems, body, new Set(['refresh_token']), NONE);
    const refreshToken = readString(problems, body, 'refresh_token', { required: true, max: 4096, trim: false });
    problems.throwIfAny();
    const result = await deps.auth.refresh(refreshToken!);
    if (!result.ok) throw new ContentHttpError(401, 'Invalid or expired refresh token.');
    const user = await createProfile(deps, result.value.account);
    res.json(tokenBody(result.value, renderUser(user, 'self')));
  });

  return router;
}
