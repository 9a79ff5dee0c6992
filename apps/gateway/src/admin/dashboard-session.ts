import type { Request, Response } from 'express';

/**
 * The queue dashboard's browser session: the admin's access token itself, in a cookie that only the
 * dashboard's own paths receive. HttpOnly (no script reads it), SameSite=Strict (no other site's page
 * can make the browser send it, so bull-board's forms need no CSRF token of their own), Secure when the
 * public address is https, and it expires with the token. Holding the token rather than a session id
 * keeps every replica able to check it (signature, audience, scope, revocation) on every request.
 */
const DASHBOARD_COOKIE = 'admin_queues_session';
/** The sign-in in progress (its `state` and PKCE verifier), sent back to the callback only. */
export const SIGN_IN_COOKIE = 'admin_queues_signin';

const COOKIE_VALUE = /^[A-Za-z0-9_.-]{1,8192}$/;

/** The cookie `name`'s value, if the request carries exactly one well-formed one. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return undefined;
  const values = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  return values.length === 1 && COOKIE_VALUE.test(values[0]!) ? values[0] : undefined;
}

export function sessionToken(req: Request): string | undefined {
  return readCookie(req, DASHBOARD_COOKIE);
}

export interface CookieScope {
  /** The path the browser sends the cookie to, and nowhere else. */
  path: string;
  publicUrl: string;
}

/**
 * `Lax` for the sign-in cookie only: the authorization server's answer reaches the callback as a top-level
 * navigation that may follow a form post, and the cookie holds nothing that opens the dashboard.
 */
function attributes(scope: CookieScope, maxAgeSeconds: number, sameSite: 'Strict' | 'Lax'): string {
  const secure = scope.publicUrl.startsWith('https:') ? '; Secure' : '';
  return `Path=${scope.path}; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAgeSeconds}${secure}`;
}

function appendCookie(res: Response, cookie: string): void {
  const existing = res.getHeader('Set-Cookie');
  const list = Array.isArray(existing) ? existing : typeof existing === 'string' ? [existing] : [];
  res.setHeader('Set-Cookie', [...list, cookie]);
}

export function setSessionCookie(res: Response, scope: CookieScope, token: string, maxAgeSeconds: number): void {
  appendCookie(res, `${DASHBOARD_COOKIE}=${token}; ${attributes(scope, maxAgeSeconds, 'Strict')}`);
}

export function clearSessionCookie(res: Response, scope: CookieScope): void {
  appendCookie(res, `${DASHBOARD_COOKIE}=; ${attributes(scope, 0, 'Strict')}`);
}

export function setSignInCookie(res: Response, scope: CookieScope, value: string, maxAgeSeconds: number): void {
  appendCookie(res, `${SIGN_IN_COOKIE}=${value}; ${attributes(scope, maxAgeSeconds, 'Lax')}`);
}

export function clearSignInCookie(res: Response, scope: CookieScope): void {
  appendCookie(res, `${SIGN_IN_COOKIE}=; ${attributes(scope, 0, 'Lax')}`);
}
