import type { Browser, BrowserContext, Page } from 'playwright-core';
import { registerAccount, startPlatform, type Account, type Platform } from '../gateway/platform';
import { launchChromium } from '../playground/chromium';

/**
 * Swagger UI's "Authorize" at `/docs` in Debian's Chromium (docs/gateway.md "Reference documents and
 * pages"): the authorization code flow with PKCE as the platform's public API-reference client, in a
 * pop-up that signs the person in, asks for consent and comes back to swagger-ui-dist's redirect page
 * under /docs; Swagger UI then redeems the code at `/token` and holds the access token.
 */
jest.setTimeout(180_000);

const WAIT = { timeout: 60_000 };

let platform: Platform;
let account: Account;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  platform = await startPlatform({
    gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }) },
  });
  account = await registerAccount(platform.publicUrl, 'Ada Reference');
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
});

afterEach(async () => {
  await context?.close();
});

it('the page names its client and the redirect page Swagger UI comes back to is served', async () => {
  const config = await fetch(`${platform.publicUrl}/docs/config.json`);
  expect(await config.json()).toEqual({ client_id: 'api-reference' });
  const redirect = await fetch(`${platform.publicUrl}/docs/oauth2-redirect.html`);
  expect(redirect.status).toBe(200);
  expect(redirect.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await redirect.text()).toContain('<script src="oauth2-redirect.js"></script>');
  const script = await fetch(`${platform.publicUrl}/docs/oauth2-redirect.js`);
  expect(script.status).toBe(200);
  expect(await script.text()).toContain('swaggerUIRedirectOauth2');
});

it('"Authorize" signs in with PKCE in a pop-up and Swagger UI holds an access token', async () => {
  await page.goto(`${platform.publicUrl}/docs?api=Content%20API`);
  await page.locator('.auth-wrapper .authorize').click(WAIT);
  const flow = page.locator('.auth-container').filter({ hasText: 'authorizationCode' });
  await flow.waitFor(WAIT);
  expect(await flow.locator('input[id^="client_id"]').inputValue()).toBe('api-reference');
  await flow.getByText('content:read', { exact: true }).click();

  const authorizeRequest = context.waitForEvent('request', {
    predicate: (req) => new URL(req.url()).pathname === '/authorize',
    ...WAIT,
  });
  const [popup] = await Promise.all([page.waitForEvent('popup'), flow.locator('button.authorize').click()]);
  const authorizeUrl = new URL((await authorizeRequest).url());
  expect(authorizeUrl.searchParams.get('client_id')).toBe('api-reference');
  expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(`${platform.publicUrl}/docs/oauth2-redirect.html`);

  await popup.getByLabel('Email').fill(account.email, WAIT);
  await popup.getByLabel('Password').fill(account.password);
  const tokenResponse = page.waitForResponse((res) => new URL(res.url()).pathname === '/token', WAIT);
  await popup.getByRole('button', { name: 'Sign in' }).click();
  await popup.getByRole('button', { name: 'Allow' }).click(WAIT);

  const token = await tokenResponse;
  expect(token.status()).toBe(200);
  expect(token.request().postData()).toContain('code_verifier=');
  const body = (await token.json()) as { access_token?: string; scope?: string };
  expect(body.access_token).toEqual(expect.any(String));
  expect(body.scope).toContain('content:read');
  // Swagger UI shows the scheme as authorized: its button turns to "Logout" (labelled "Remove authorization").
  await flow.getByRole('button', { name: 'Remove authorization' }).waitFor(WAIT);
});
