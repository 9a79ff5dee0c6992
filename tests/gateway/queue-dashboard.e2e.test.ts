import type { BaseClient } from 'openid-client';
import { authorizeCode, FormAgent } from '../auth/helpers/fixtures';
import { codeFlowClient } from './code-flow-client';
import {
  createApiKey,
  eventually,
  INTERNAL_SECRET,
  json,
  registerAccount,
  startPlatform,
  type Account,
  type Platform,
} from './platform';

/**
 * The synthesis queues' dashboard (bull-board) at /admin/queues on the real gateway, with tokens from
 * the real authorization server by the code flow through the gateway, and a real synthesis worker.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
let platform: Platform;
let gateway: string;
let client: BaseClient;
let redirectUri: string;
let admin: Account;
let adminToken: string;
let userToken: string;

interface BoardQueue {
  name: string;
  counts: Record<string, number>;
  jobs: { id: string }[];
  readOnlyMode: boolean;
}

async function signIn(account: Account): Promise<string> {
  const { params, verifier, state } = await authorizeCode(gateway, client, account, 'admin content:read');
  const tokens = await client.oauthCallback(redirectUri, params, { code_verifier: verifier, state });
  return tokens.access_token!;
}

async function board(pathname: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(`${gateway}/admin/queues${pathname}`, { method, headers });
  const body = res.headers.get('content-type')?.includes('json') ? await json(res) : await res.text();
  return { status: res.status, headers: res.headers, body };
}

beforeAll(async () => {
  platform = await startPlatform({
    speechWorkers: {},
    gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }) },
  });
  gateway = platform.publicUrl;
  ({ client, redirectUri } = await codeFlowClient(platform, 'Operations console', 'admin content:read'));

  admin = await registerAccount(gateway, 'Queue Admin');
  // The first admin: straight in auth (its internal endpoint, as the operators' tooling does).
  const promoted = await fetch(`${platform.auth.url}/internal/accounts/${admin.id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
    body: JSON.stringify({ roles: ['ADMIN'] }),
  });
  expect(promoted.status).toBe(200);
  adminToken = await signIn(admin);
  userToken = await signIn(await registerAccount(gateway, 'Queue User'));
}, 180_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

describe('who sees the queue dashboard', () => {
  it("an ADMIN account with an admin-scoped token sees the synthesis queue in bull-board's JSON API, read-only", async () => {
    const res = await board('/api/queues', { authorization: `Bearer ${adminToken}` });
    expect(res.status).toBe(200);
    const queues = (res.body as { queues: BoardQueue[] }).queues;
    expect(queues.map((q) => q.name)).toEqual([platform.speech.queue]);
    expect(queues[0]!.readOnlyMode).toBe(true);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('read-only: an admin cannot pause, retry or clean the synthesis queue through it', async () => {
    const admin = { authorization: `Bearer ${adminToken}` };
    const name = encodeURIComponent(platform.speech.queue);
    expect((await board(`/api/queues/${name}/pause`, admin, 'PUT')).status).toBe(405);
    expect((await board(`/api/queues/${name}/retry/failed`, admin, 'PUT')).status).toBe(405);
    expect((await board(`/api/queues/${name}/clean/completed`, admin, 'PUT')).status).toBe(405);
    await board('/api/queues/pause', admin, 'PUT');
    const after = (await board('/api/queues', admin)).body as { queues: (BoardQueue & { isPaused: boolean })[] };
    expect(after.queues[0]!.isPaused).toBe(false);
  });

  it("the page and its assets are refused to an anonymous caller (401) and to a USER account (403), in OAuth's error shape", async () => {
    const page = await board('/', { authorization: `Bearer ${adminToken}` });
    expect(page.status).toBe(200);
    const asset = /src="(static\/js\/main\.[^"]+\.js)"/.exec(String(page.body))?.[1];
    expect(asset).toBeDefined();
    expect((await board(`/${asset!}`, { authorization: `Bearer ${adminToken}` })).status).toBe(200);

    for (const pathname of ['', '/', '/api/queues', `/${asset!}`, '/queue/anything']) {
      const anonymous = await board(pathname);
      expect({ pathname, status: anonymous.status, body: anonymous.body }).toEqual({
        pathname,
        status: 401,
        body: expect.objectContaining({ error: 'invalid_token' }),
      });
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const user = await board(pathname, { authorization: `Bearer ${userToken}` });
      expect({ pathname, status: user.status, body: user.body }).toEqual({
        pathname,
        status: 403,
        body: expect.objectContaining({ error: 'insufficient_scope' }),
      });
    }
  });

  it("a user's API key and a forged token are refused too", async () => {
    const someone = await registerAccount(gateway, 'Key Holder');
    const { key } = await createApiKey(platform.auth.url, someone.id);
    expect((await board('/api/queues', { 'xi-api-key': key })).status).toBe(403);
    expect((await board('/api/queues', { authorization: `Bearer ${adminToken.slice(0, -4)}AAAA` })).status).toBe(401);
  });

  it("auth's own administration API under /admin is still auth's", async () => {
    const res = await fetch(`${gateway}/admin/clients`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(res.status).toBe(200);
  });
});

describe('the browser session', () => {
  it("an admin's Bearer token handed to POST /admin/queues/session becomes an HttpOnly, SameSite=Strict cookie for the dashboard's paths only", async () => {
    const set = await board('/session', { authorization: `Bearer ${adminToken}` }, 'POST');
    expect(set.status).toBe(204);
    const cookie = set.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(
      /^admin_queues_session=[\w.-]+; Path=\/admin\/queues; HttpOnly; SameSite=Strict; Max-Age=\d+$/,
    );
    const pair = cookie.split(';')[0]!;
    const page = await board('/', { cookie: pair });
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('<base href="/admin/queues/"');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*font-src 'self' data:/);
    expect(page.headers.get('x-powered-by')).toBeNull();
    expect((await board('/api/queues', { cookie: pair })).status).toBe(200);

    const cleared = await board('/session', {}, 'DELETE');
    expect(cleared.status).toBe(204);
    expect(cleared.headers.get('set-cookie')).toMatch(/^admin_queues_session=; Path=\/admin\/queues; .*Max-Age=0$/);
  });

  it("a USER's token gets no session, and a cookie holding it opens nothing", async () => {
    const refused = await board('/session', { authorization: `Bearer ${userToken}` }, 'POST');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect((await board('/api/queues', { cookie: `admin_queues_session=${userToken}` })).status).toBe(403);
    expect((await board('/session', {}, 'POST')).status).toBe(401);
  });
});

describe('signing in with a browser', () => {
  /** The code flow a browser goes through from the dashboard's sign-in, forms filled in as a person would. */
  async function browserSignIn(account: Account) {
    const agent = new FormAgent(gateway);
    const start = await agent.follow('/admin/queues/sign-in');
    // signIn answers the page it was given when no sign-in form is on it: that page's full shape.
    let page = (await agent.signIn(start, account)) as typeof start;
    if (page.html.includes('action="/authorize/decision"'))
      page = await agent.decide(page, '/authorize/decision', 'approve');
    return { agent, page };
  }

  it('a page load without credentials is sent to the sign-in, which sends it to the authorization server with PKCE', async () => {
    const page = await fetch(`${gateway}/admin/queues/`, {
      headers: { accept: 'text/html,application/xhtml+xml' },
      redirect: 'manual',
    });
    expect([page.status, page.headers.get('location')]).toEqual([302, '/admin/queues/sign-in']);
    const signIn = await fetch(`${gateway}/admin/queues/sign-in`, { redirect: 'manual' });
    expect(signIn.status).toBe(302);
    const authorize = new URL(signIn.headers.get('location')!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${gateway}/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'queue-dashboard',
      redirect_uri: `${gateway}/admin/queues/callback`,
      scope: 'admin',
      code_challenge_method: 'S256',
    });
    expect(signIn.headers.get('set-cookie')).toMatch(
      /^admin_queues_signin=[\w-]+\.[\w-]+; Path=\/admin\/queues\/callback; HttpOnly; SameSite=Lax; Max-Age=600$/,
    );
  });

  it('an ADMIN signs in and lands on the dashboard, its session in the HttpOnly cookie', async () => {
    const { agent, page } = await browserSignIn(admin);
    expect([page.res.status, page.url]).toEqual([200, `${gateway}/admin/queues/`]);
    expect(page.html).toContain('<base href="/admin/queues/"');
    expect(agent.cookie('admin_queues_session')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await agent.request('/admin/queues/api/queues')).status).toBe(200);
  });

  it('a USER who signs in gets 403 and no session; a callback without its sign-in is refused', async () => {
    const { agent, page } = await browserSignIn(await registerAccount(gateway, 'Curious User'));
    expect(page.url.startsWith(`${gateway}/admin/queues/callback`)).toBe(true);
    expect(page.res.status).toBe(403);
    expect(agent.cookie('admin_queues_session') ?? '').toBe('');
    const forged = await fetch(`${gateway}/admin/queues/callback?code=abc&state=def`);
    expect([forged.status, ((await forged.json()) as { error: string }).error]).toEqual([400, 'invalid_request']);
  });
});

describe('finished jobs stay visible', () => {
  it('a completed synthesis job is kept in the queue and listed by the dashboard', async () => {
    const owner = await registerAccount(gateway, 'Speaker');
    const { key } = await createApiKey(platform.auth.url, owner.id);
    const tts = await fetch(`${gateway}/v1/text-to-speech/${RACHEL}`, {
      method: 'POST',
      headers: { 'xi-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Kept for the dashboard.' }),
    });
    expect(tts.status).toBe(200);
    await tts.arrayBuffer();
    const jobId = tts.headers.get('history-item-id');
    expect(jobId).toBeTruthy();
    const query = new URLSearchParams({
      activeQueue: platform.speech.queue,
      status: 'completed',
      page: '1',
      jobsPerPage: '50',
    });
    const completed = async () => {
      const res = await board(`/api/queues?${query.toString()}`, { authorization: `Bearer ${adminToken}` });
      expect(res.status).toBe(200);
      return (res.body as { queues: BoardQueue[] }).queues[0]!.jobs.map((job) => job.id);
    };
    // The worker marks the job completed just after it wrote the last audio frame the client received.
    await eventually(async () => (await completed()).includes(jobId!), 10_000);
    expect(await completed()).toContain(jobId);
  });
});
