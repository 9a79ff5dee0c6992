import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, uniqueName } from '@platform/testing';
import { registerAccount, startPlatform, type Account, type Platform } from '../gateway/platform';
import { launchChromium } from '../playground/chromium';
import { graphiql } from './graphiql';

/**
 * The reference pages in Debian's Chromium against the real platform, with every request to another
 * origin refused and recorded: `/docs` renders the three OpenAPI documents' operations (Swagger UI),
 * `/docs/asyncapi` the AsyncAPI document, and `/graphql` opened by a browser is GraphiQL, which runs
 * a query with the playground session's token and receives a subscription event over graphql-ws
 * after a mutation. No page may load anything from elsewhere or break its Content-Security-Policy.
 *
 * Screenshots go to PLAYGROUND_SCREENSHOTS (docs/images when the docs are refreshed), else to
 * .stack/screenshots.
 */
jest.setTimeout(180_000);

const WAIT = { timeout: 60_000 };
const shots = path.resolve(__dirname, '../..', process.env.PLAYGROUND_SCREENSHOTS ?? '.stack/screenshots');

let platform: Platform;
let account: Account;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Requests and sockets to any origin but the gateway's, and CSP or script errors, per page. */
let foreign: string[];
let problems: string[];

beforeAll(async () => {
  // The explorer's own requests (its schema introspection, the query) and the test's posts share one
  // account: a plan that allows their rate, as the limits are not what this file tests.
  platform = await startPlatform({
    gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }) },
  });
  account = await registerAccount(platform.publicUrl, 'Grace Explorer');
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

beforeEach(async () => {
  foreign = [];
  problems = [];
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const origin = new URL(platform.publicUrl).origin;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  page = await context.newPage();
  page.on('websocket', (socket) => {
    if (new URL(socket.url()).host !== new URL(origin).host) foreign.push(socket.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text()))
      problems.push(message.text().slice(0, 300));
  });
  page.on('pageerror', (err) => problems.push(err.message));
});

afterEach(async () => {
  await context?.close();
  expect(foreign).toEqual([]);
  expect(problems).toEqual([]);
});

describe('/docs', () => {
  it("renders each OpenAPI document's operations from the gateway alone", async () => {
    const res = await page.goto(`${platform.publicUrl}/docs`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self';");
    for (const name of ['Speech API', 'Content API', 'Auth API (OAuth 2.0 / OpenID Connect)']) {
      await page.locator('.topbar select').selectOption({ label: name });
      const document = (await (
        await fetch(`${platform.publicUrl}/openapi/${name.split(' ')[0]!.toLowerCase()}.json`)
      ).json()) as { paths: Record<string, object> };
      const firstPath = Object.keys(document.paths)[0];
      await page
        .locator('.information-container .title', {
          hasText: (await page.locator('.topbar select option:checked').innerText()).split(' ')[0]!,
        })
        .waitFor(WAIT);
      if (firstPath) {
        await page.locator('.opblock-summary-path', { hasText: firstPath }).first().waitFor(WAIT);
      }
      expect(await page.locator('.opblock').count()).toBe(
        Object.values(document.paths).reduce(
          (n, item) =>
            n +
            Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(k))
              .length,
          0,
        ),
      );
      if (name === 'Speech API') await page.screenshot({ path: path.join(shots, 'reference-docs.png') });
    }
  });
});

describe('/docs/asyncapi', () => {
  it('renders the WebSocket channels and every Kafka topic', async () => {
    await page.goto(`${platform.publicUrl}/docs/asyncapi`);
    for (const title of [
      'Speech stream-input',
      'GraphQL over WebSocket',
      'Kafka topic content.users',
      'Kafka topic content.posts',
      'Kafka topic content.comments',
    ]) {
      await page.getByRole('heading', { name: title, exact: true }).waitFor(WAIT);
    }
    await page.getByText('Audio as binary frames', { exact: false }).first().waitFor(WAIT);
    await page.getByText('Audio as JSON messages', { exact: false }).first().waitFor(WAIT);
    await page.screenshot({ path: path.join(shots, 'reference-asyncapi.png') });
  });
});

describe('GraphQL explorer at /graphql', () => {
  const explorer = () => graphiql(page, WAIT);
  const run = (query: string) => explorer().run(query);
  const responseText = () => explorer().responseText();

  /**
   * Publishes posts (as the test's account) until the running subscription shows one: the subscription
   * is live once graphql-ws has acknowledged it. Answers the event shown.
   */
  const postUntilShown = async (): Promise<unknown> => {
    const titles: string[] = [];
    const post = async () => {
      const title = uniqueName('explorer-post');
      titles.push(title);
      const created = await fetch(`${platform.publicUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
        body: JSON.stringify({
          query: 'mutation ($input: CreatePostInput!) { createPost(input: $input) { success } }',
          variables: { input: { title, content: 'Seen live in GraphiQL.', status: 'PUBLISHED' } },
        }),
      });
      expect(await created.json()).toEqual({ data: { createPost: { success: true } } });
    };
    await eventually(
      async () => {
        const text = await responseText();
        if (titles.some((t) => text.includes(t))) return true;
        await post();
        return false;
      },
      60_000,
      1_000,
    );
    const shown = JSON.parse(await responseText()) as { data: { onPostCreated: { title: string } } };
    expect(titles).toContain(shown.data.onPostCreated.title);
    return shown;
  };

  /** The playground's session in this tab's storage, as its sign-in leaves it. */
  const playgroundSession = (token: string) =>
    page.addInitScript((value) => {
      sessionStorage.setItem(
        'playground.tokens',
        JSON.stringify({ accessToken: value, expiresAt: Date.now() + 600_000, person: { sub: 'x' } }),
      );
    }, token);

  it('is what a browser gets, while GraphQL clients still get GraphQL', async () => {
    const asClient = await fetch(`${platform.publicUrl}/graphql`, { headers: { accept: 'application/json' } });
    expect(asClient.headers.get('content-type')).toMatch(/^application\/json/);
    const res = await page.goto(`${platform.publicUrl}/graphql`);
    expect(res!.headers()['content-type']).toMatch(/^text\/html/);
    await page.locator('.graphiql-container').waitFor(WAIT);
  });

  it('works on first open without signing in: the schema loads, public posts and their events arrive', async () => {
    // GraphiQL loads the schema (an introspection query over HTTP) with the headers it starts with: none.
    const introspected = page.waitForResponse(
      (r) => r.url().endsWith('/graphql') && r.request().method() === 'POST',
      WAIT,
    );
    await page.goto(`${platform.publicUrl}/graphql`);
    const schema = await introspected;
    expect(schema.request().headers().authorization).toBeUndefined();
    expect(schema.status()).toBe(200);
    expect(await schema.json()).toMatchObject({ data: { __schema: { queryType: { name: 'Query' } } } });
    // The documentation explorer shows the schema's root types.
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().waitFor(WAIT);

    expect(await explorer().result('{ posts(first: 1) { edges { node { id } } } }')).toEqual({
      data: { posts: { edges: expect.any(Array) } },
    });
    await run('subscription { onPostCreated { title author { name } } }');
    expect(await postUntilShown()).toEqual({
      data: { onPostCreated: { title: expect.any(String), author: { name: 'Grace Explorer' } } },
    });
  });

  it('shows why a subscription failed, not the socket event', async () => {
    // A token that is no token: the gateway closes the graphql-ws socket with 4401.
    await playgroundSession('not-a-token');
    await page.goto(`${platform.publicUrl}/graphql`);
    await page.locator('.graphiql-container').waitFor(WAIT);
    await run('subscription { onPostCreated { title } }');
    await page.waitForFunction(
      () => /"errors"/.test(document.querySelector('.graphiql-response')?.textContent ?? ''),
      undefined,
      WAIT,
    );
    const shown = JSON.parse(await responseText()) as { errors: { message: string }[] };
    expect(shown.errors).toEqual([{ message: expect.stringMatching(/^The GraphQL WebSocket closed \(4401/) }]);
    expect(await responseText()).not.toContain('isTrusted');
  });

  it("runs a query with the signed-in session's token and receives a subscription event after a mutation", async () => {
    await playgroundSession(account.token);
    // GraphiQL loads the schema (an introspection query over HTTP) before its editors settle.
    const introspected = page.waitForResponse(
      (r) => r.url().endsWith('/graphql') && r.request().method() === 'POST',
      WAIT,
    );
    await page.goto(`${platform.publicUrl}/graphql`);
    expect((await introspected).status()).toBe(200);
    await page.locator('.graphiql-container').waitFor(WAIT);

    expect(await explorer().result('{ me { name email } }')).toEqual({
      data: { me: { name: 'Grace Explorer', email: account.email } },
    });

    await run('subscription { onPostCreated { title author { name } } }');
    expect(await postUntilShown()).toEqual({
      data: { onPostCreated: { title: expect.any(String), author: { name: 'Grace Explorer' } } },
    });
    await page.screenshot({ path: path.join(shots, 'reference-graphiql.png') });
  });
});
