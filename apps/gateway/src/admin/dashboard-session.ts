import type { Request, Response } from 'express';

/**
 * The queue dashboard's browser session: the admin's access token itself, in a cookie that only the
 * dashboard's own paths receive. HttpOnly (no script reads it), SameSite=Strict (no other site's page
 * can make the browser send it, so bull-board's forms need no CSRF token of their own), Secure when the
 * public address is https, and it expires with the token. Holding the token rather than a session id
 * keeps every replica able to check it (signature, audience, scope, revocation) on every request.
 */
export const DASHBOARD_COOKIE = 'admin_queues_session';

const JWT_CHARACTERS = /^[A-Za-z0-9_.-]{1,8192}$/;

/** The session cookie's token, if the request carries exactly one well-formed one. */
export function sessionToken(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return undefined;
  const values = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${DASHBOARD_COOKIE}=`))
    .map((part) => part.slice(DASHBOARD_COOKIE.length + 1));
  return values.length === 1 && JWT_CHARACTERS.test(values[0]!) ? values[0] : undefined;
}

export interface SessionCookieOptions {
  /** The dashboard's path (`/admin/queues`): the cookie goes nowhere else. */
  path: string;
  publicUrl: string;
}

function attributes(options: SessionCookieOptions, maxAgeSeconds: number): string {
  const secure = options.publicUrl.startsWith('https:') ? '; Secure' : '';
  return `Path=${options.path}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export function setSessionCookie(res: Response, options: SessionCookieOptions, token: string, maxAgeSeconds: number): void {
  res.setHeader('Set-Cookie', `${DASHBOARD_COOKIE}=${token}; ${attributes(options, maxAgeSeconds)}`);
}

export function clearSessionCookie(res: Response, options: SessionCookieOptions): void {
  res.setHeader('Set-Cookie', `${DASHBOARD_COOKIE}=; ${attributes(options, 0)}`);
}
