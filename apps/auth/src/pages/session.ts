import type { Request, Response } from 'express';
import type { AccountDoc } from '../accounts/account-model';
import { randomToken, safeEqual, sha256 } from '../crypto/secrets';
import type { Deps } from '../deps';

const SESSION_COOKIE = 'auth_sid';
const CSRF_COOKIE = 'auth_csrf';

function cookies(req: Request): Record<string, string> {
  // Prototype-free: cookie names are the client's (`constructor`, `__proto__`).
  const out = Object.create(null) as Record<string, string>;
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header.length > 8192) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name && !(name in out) && /^[A-Za-z0-9_-]{1,100}$/.test(value)) out[name] = value;
  }
  return out;
}

function cookieAttributes(deps: Deps, maxAge: number): string {
  const secure = deps.config.PUBLIC_URL.startsWith('https:') ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

function appendCookie(res: Response, cookie: string): void {
  const existing = res.getHeader('Set-Cookie');
  const list = Array.isArray(existing) ? existing : typeof existing === 'string' ? [existing] : [];
  res.setHeader('Set-Cookie', [...list, cookie]);
}

const sessionKey = (sid: string) => `auth:session:${sha256(sid)}`;

/**
 * The session holds the account id, the account's `securityVersion` when it signed in and the time
 * it signed in (`<id> <version> <authTime ms>`): a change of the account's rights (password, roles,
 * status) bumps the version, which ends every sign-in session begun before it, as it revokes the
 * account's tokens. The sign-in time is OpenID Connect's `auth_time` (`max_age`, `prompt=login`);
 * a session stored before it was recorded counts as signed in at 0 (too old for any `max_age`).
 */
function sessionValue(account: Pick<AccountDoc, '_id' | 'securityVersion'>): string {
  return `${account._id} ${account.securityVersion ?? 0}`;
}

export interface SignInSession {
  /** The session id's hash: names what belongs to this session only (remembered consent). */
  id: string;
  account: AccountDoc;
  /** When the person signed in (ms since the epoch). */
  authTime: number;
}

/** The sign-in session (Redis, HttpOnly cookie), if any, with its account and sign-in time. */
export async function currentSession(deps: Deps, req: Request): Promise<SignInSession | null> {
  const sid = cookies(req)[SESSION_COOKIE];
  if (!sid) return null;
  const stored = await deps.redis.get(sessionKey(sid));
  if (!stored) return null;
  const [id, version, authTime] = stored.split(' ');
  const account = await deps.accounts.findById(id).lean<AccountDoc>();
  if (account?.status !== 'active' || `${id} ${version}` !== sessionValue(account)) return null;
  const at = Number(authTime);
  return { id: sha256(sid), account, authTime: Number.isSafeInteger(at) && at > 0 ? at : 0 };
}

/** The signed-in account of the sign-in session, if any. */
export async function sessionAccount(deps: Deps, req: Request): Promise<AccountDoc | null> {
  return (await currentSession(deps, req))?.account ?? null;
}

export async function startSession(
  deps: Deps,
  res: Response,
  account: Pick<AccountDoc, '_id' | 'securityVersion'>,
): Promise<void> {
  const sid = randomToken();
  await deps.redis.set(sessionKey(sid), `${sessionValue(account)} ${Date.now()}`, 'EX', deps.config.SESSION_TTL);
  appendCookie(res, `${SESSION_COOKIE}=${sid}; ${cookieAttributes(deps, deps.config.SESSION_TTL)}`);
}

/** Signs out: the server-side session is deleted (the cookie's id is then worthless anywhere) and the cookie cleared. */
export async function endSession(deps: Deps, req: Request, res: Response): Promise<boolean> {
  const sid = cookies(req)[SESSION_COOKIE];
  const deleted = sid ? (await deps.redis.del(sessionKey(sid))) > 0 : false;
  appendCookie(res, `${SESSION_COOKIE}=; ${cookieAttributes(deps, 0)}`);
  return deleted;
}

/**
 * CSRF protection for the forms: a random double-submit token in an HttpOnly SameSite=Lax cookie that
 * each form repeats in a hidden field; a cross-site page can neither read the cookie nor set it.
 */
export function csrfToken(deps: Deps, req: Request, res: Response): string {
  const existing = cookies(req)[CSRF_COOKIE];
  if (existing) return existing;
  const token = randomToken('', 24);
  appendCookie(res, `${CSRF_COOKIE}=${token}; ${cookieAttributes(deps, 86400)}`);
  return token;
}

export function csrfValid(req: Request, submitted: unknown): boolean {
  const cookie = cookies(req)[CSRF_COOKIE];
  return typeof submitted === 'string' && cookie !== undefined && safeEqual(cookie, submitted);
}

/** `return_to` may only be a path on this server (no open redirect). */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[\x21-\x7E]{0,2000}$/.test(value) ? value : '/device';
}

/**
 * Relative paths: the pages work the same behind the gateway and directly. `loginHint` (OpenID
 * Connect's `login_hint`) is the email the sign-in page starts with.
 */
export function loginRedirect(returnTo: string, loginHint?: string): string {
  const hint = loginHint ? `&login_hint=${encodeURIComponent(loginHint)}` : '';
  return `/login?return_to=${encodeURIComponent(returnTo)}${hint}`;
}
