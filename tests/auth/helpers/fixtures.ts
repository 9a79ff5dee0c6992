import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { generators, type BaseClient, type TokenSet } from 'openid-client';
import { stackEnv } from '@platform/testing';
import { GRANT_TYPES } from '../../../apps/auth/src/grants';
import { INTERNAL_SECRET, type RunningAuth } from './start-auth';

const run = promisify(execFile);

/**
 * Runs the admin CLI (the built one, as operators do) against the test's database. `stdin` is what is
 * piped to it (a password with `--password-stdin`); standard input is closed either way.
 */
export async function cli<T>(auth: RunningAuth, args: string[], stdin = ''): Promise<T> {
  const call = run(process.execPath, [path.resolve(__dirname, '../../../apps/auth/dist/cli/main.js'), ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      ...stackEnv(),
      ...auth.extraEnv,
      MONGO_DB: auth.db,
      INTERNAL_SECRET,
      PUBLIC_URL: auth.issuer,
    },
    timeout: 30_000,
  });
  call.child.stdin?.end(stdin);
  const { stdout } = await call;
  return JSON.parse(stdout) as T;
}

export interface CreatedClient {
  client_id: string;
  client_secret?: string;
}

/** Every grant auth serves, from its registry of grants (the list has one owner). */
export const ALL_GRANTS: string[] = [...GRANT_TYPES];

export async function createUser(
  auth: RunningAuth,
  email = `user.${Date.now()}.${Math.random().toString(36).slice(2)}@example.org`,
  password = 'user-password-1',
) {
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

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const res = await fetch(new URL(url, this.base), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...init.headers,
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    this.store(res);
    return res;
  }

  /** Follows same-origin redirects; stops at a page (200) or at a redirect elsewhere, returning it. */
  async follow(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{ res: Response; url: string; html: string }> {
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

  /** A cookie as this agent holds it (e.g. `auth_sid`, the sign-in session id). */
  cookie(name: string): string | undefined {
    return this.jar.get(name);
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
      form: {
        csrf: FormAgent.field(page.html, 'csrf'),
        return_to: FormAgent.field(page.html, 'return_to'),
        email: user.email,
        password: user.password,
      },
    });
  }

  /** Submits the consent/approval form on `page` (posting to `action`) with the given decision. */
  async decide(page: { html: string }, action: string, decision: 'approve' | 'deny') {
    const form: Record<string, string> = { csrf: FormAgent.field(page.html, 'csrf'), decision };
    for (const name of ['request', 'user_code'])
      if (page.html.includes(`name="${name}" value=`)) form[name] = FormAgent.field(page.html, name);
    return this.follow(action, { form });
  }
}

/** A new agent signs `user` in at an authorization URL and approves; the URL the browser lands on at the client. */
export async function signInAndApprove(
  issuerUrl: string,
  url: URL,
  user: { email: string; password: string },
): Promise<URL> {
  const agent = new FormAgent(issuerUrl);
  const consent = await agent.signIn(await agent.follow(url.href), user);
  const done = await agent.decide(consent, '/authorize/decision', 'approve');
  return new URL(done.url);
}

/**
 * The code flow with PKCE by the forms, up to the callback: a new agent signs `user` in and approves.
 * Returns what the client needs to redeem the code (openid-client's `oauthCallback`).
 */
export async function authorizeCode(
  issuerUrl: string,
  client: BaseClient,
  user: { email: string; password: string },
  scope: string,
) {
  const verifier = generators.codeVerifier();
  const state = generators.state();
  const agent = new FormAgent(issuerUrl);
  const consent = await agent.signIn(
    await agent.follow(
      client.authorizationUrl({
        scope,
        state,
        code_challenge: generators.codeChallenge(verifier),
        code_challenge_method: 'S256',
      }),
    ),
    user,
  );
  const done = await agent.decide(consent, '/authorize/decision', 'approve');
  const params = client.callbackParams(done.url);
  if (!params.code) throw new Error(`no code in ${done.url}`);
  return { params, verifier, state, agent, code: params.code };
}

/** The code flow through to the tokens; `redirectUri` must be the client's registered one. */
export async function codeFlowTokens(
  issuerUrl: string,
  client: BaseClient,
  user: { email: string; password: string },
  scope: string,
  redirectUri: string,
): Promise<TokenSet> {
  const { params, verifier, state } = await authorizeCode(issuerUrl, client, user, scope);
  return client.oauthCallback(redirectUri, params, { code_verifier: verifier, state });
}

/** A user signs in on the verification page, enters the user code and allows or denies (RFC 8628 §3.3). */
export async function decideDevice(
  issuerUrl: string,
  handle: { verification_uri_complete?: string; user_code: string },
  user: { email: string; password: string },
  decision: 'approve' | 'deny',
) {
  const agent = new FormAgent(issuerUrl);
  const entry = await agent.signIn(await agent.follow(handle.verification_uri_complete!), user);
  const confirm = await agent.follow('/device', {
    form: { csrf: FormAgent.field(entry.html, 'csrf'), user_code: handle.user_code },
  });
  if (!confirm.html.includes('action="/device/decision"')) throw new Error(`no decision form:\n${confirm.html}`);
  return { agent, page: await agent.decide(confirm, '/device/decision', decision) };
}
