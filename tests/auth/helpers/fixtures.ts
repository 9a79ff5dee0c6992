import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { stackEnv } from '@platform/testing';
import { INTERNAL_SECRET, type RunningAuth } from './start-auth';

const run = promisify(execFile);

/** Runs the admin CLI (the built one, as operators do) against the test's database. */
export async function cli<T>(auth: RunningAuth, args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [path.resolve(__dirname, '../../../apps/auth/dist/cli/main.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...stackEnv(), MONGO_DB: auth.db, INTERNAL_SECRET, PUBLIC_URL: auth.issuer },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as T;
}

export interface CreatedClient {
  client_id: string;
  client_secret?: string;
}

export const ALL_GRANTS = [
  'authorization_code',
  'client_credentials',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
  'urn:ietf:params:oauth:grant-type:token-exchange',
];

export async function createUser(auth: RunningAuth, email = `user.${Date.now()}.${Math.random().toString(36).slice(2)}@example.org`, password = 'user-password-1') {
  const res = await auth.internal('/accounts', { body: { name: 'Test User', email, password } });
  const account = (await res.json()) as { id: string };
  return { id: account.id, email, password };
}

/**
 * A cookie-keeping user agent that fills in the server-rendered forms the way a person would
 * (no JavaScript involved). The browser test does the same with real Chromium.
 */
export class FormAgent {
  private jar = new Map<string, string>();
  constructor(private base: string) {}

  private store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const res = await fetch(new URL(url, this.base), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    this.store(res);
    return res;
  }

  /** Follows same-origin redirects; stops at a page (200) or at a redirect elsewhere, returning it. */
  async follow(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ res: Response; url: string; html: string }> {
    let res = await this.request(url, init);
    let current = new URL(url, this.base).href;
    for (let i = 0; i < 10 && res.status >= 300 && res.status < 400; i++) {
      const next = new URL(res.headers.get('location')!, current).href;
      if (!next.startsWith(this.base)) return { res, url: next, html: '' };
      current = next;
      res = await this.request(next);
    }
    return { res, url: current, html: await res.text() };
  }

  static field(html: string, name: string): string {
    const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
    if (!match) throw new Error(`no field ${name} in page:\n${html}`);
    return match[1]!.replace(/&amp;/g, '&');
  }

  /** From a sign-in page (or a page after it), signs in and returns the page the sign-in leads to. */
  async signIn(page: { html: string }, user: { email: string; password: string }) {
    if (!page.html.includes('action="/login"')) return page;
    return this.follow('/login', {
      form: { csrf: FormAgent.field(page.html, 'csrf'), return_to: FormAgent.field(page.html, 'return_to'), email: user.email, password: user.password },
    });
  }

  /** Submits the consent/approval form on `page` (posting to `action`) with the given decision. */
  async decide(page: { html: string }, action: string, decision: 'approve' | 'deny') {
    const form: Record<string, string> = { csrf: FormAgent.field(page.html, 'csrf'), decision };
    for (const name of ['request', 'user_code']) if (page.html.includes(`name="${name}" value=`)) form[name] = FormAgent.field(page.html, name);
    return this.follow(action, { form });
  }
}
