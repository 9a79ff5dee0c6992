import { freePort, stackEnv, startApp, uniqueName, type RunningApp } from '@platform/testing';

export const INTERNAL_SECRET = 'auth-tests-internal-secret-0123456789abcdef';

export interface RunningAuth extends RunningApp {
  /** Issuer (PUBLIC_URL): auth's own URL when started alone. */
  issuer: string;
  db: string;
  /** The settings it was started with beyond the defaults (the admin CLI runs with them too). */
  extraEnv: Record<string, string>;
  internal: (path: string, init?: { method?: string; body?: unknown }) => Promise<Response>;
}

/** Starts the built auth app alone on a free port with its own database; PUBLIC_URL is its own URL. */
export async function startAuth(extraEnv: Record<string, string> = {}): Promise<RunningAuth> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const db = uniqueName('auth');
  const app = await startApp({
    app: 'auth',
    env: {
      ...stackEnv(),
      PORT: String(port),
      MONGO_DB: db,
      INTERNAL_SECRET,
      PUBLIC_URL: url,
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    readyTimeoutMs: 60_000,
  });
  const internal = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${url}/internal${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { 'x-internal-secret': INTERNAL_SECRET, 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  return { ...app, issuer: url, db, extraEnv, internal };
}
