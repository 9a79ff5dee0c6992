import http from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { Issuer, generators, type BaseClient } from 'openid-client';
import { freePort } from '@platform/testing';
import { ALL_GRANTS, cli, createUser, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';
import { accessibilityProblems } from '../playground/accessibility';
import { launchChromium } from '../playground/chromium';

jest.setTimeout(90_000);

let auth: RunningAuth;
let browser: Browser;
let callbackServer: http.Server;
let redirectUri: string;
let client: BaseClient;
let user: { id: string; email: string; password: string };

beforeAll(async () => {
  auth = await startAuth();
  const port = await freePort();
  redirectUri = `http://127.0.0.1:${port}/cb`;
  // The client's callback: a page that only says it got the answer.
  callbackServer = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>callback reached</p>'),
  );
  await new Promise<void>((resolve) => callbackServer.listen(port, '127.0.0.1', resolve));
  const created = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Browser app',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    '--redirect-uri',
    redirectUri,
    '--scope',
    'content:read speech:read offline_access',
  ]);
  const issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
  client = new issuer.Client({
    client_id: created.client_id,
    client_secret: created.client_secret!,
    redirect_uris: [redirectUri],
    response_types: ['code'],
  });
  user = await createUser(auth);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await auth?.stop();
  await new Promise((resolve) => callbackServer?.close(resolve));
});

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('real browser (Chromium)', () => {
  it('code flow: signs in, consents, and the client redeems the code', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const verifier = generators.codeVerifier();
    const state = generators.state();
    await page.goto(
      client.authorizationUrl({
        scope: 'content:read offline_access',
        state,
        code_challenge: generators.codeChallenge(verifier),
        code_challenge_method: 'S256',
      }),
    );
    await signIn(page);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 15_000 });
    const params = client.callbackParams(page.url());
    const tokens = await client.oauthCallback(redirectUri, params, { code_verifier: verifier, state });
    expect(tokens.refresh_token).toMatch(/^rt_/);
    expect(await client.introspect(tokens.access_token!)).toMatchObject({ active: true, sub: user.id });
    await context.close();
  });

  it('device flow: the user enters the code and approves; the device gets its tokens', async () => {
    const handle = await client.deviceAuthorization({ scope: 'speech:read' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(handle.verification_uri);
    await signIn(page);
    await page.getByLabel('Code shown on your device').fill(handle.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('Device connected').waitFor({ timeout: 15_000 });
    await context.close();
    const set = await client.grant({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: handle.device_code,
    });
    expect(await client.introspect(set.access_token!)).toMatchObject({
      active: true,
      sub: user.id,
      scope: 'speech:read',
    });
  });

  it('every page has the playground look, passes its accessibility checks, and says what each scope means', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') refused.push(m.text());
    });
    /** The page is drawn by auth's shared stylesheet (the playground's tokens) and passes the checks. */
    const looksRight = async (title: string) => {
      await page.getByRole('heading', { level: 1, name: title }).waitFor({ timeout: 15_000 });
      const look = await page.evaluate(() => ({
        sheet: document.querySelector<HTMLLinkElement>('link[rel=stylesheet]')?.getAttribute('href'),
        font: getComputedStyle(document.body).fontFamily,
        primary: getComputedStyle(document.querySelector('button.primary')!).backgroundColor,
        main: getComputedStyle(document.querySelector('main')!).maxWidth,
      }));
      expect(look).toEqual({
        sheet: expect.stringMatching(/^\/login\/pages\.css\?v=[0-9a-f]{16}$/),
        font: expect.stringContaining('system-ui'),
        primary: 'rgb(29, 78, 216)', // the playground's --accent
        main: '480px',
      });
      expect(await accessibilityProblems(page)).toEqual([]);
    };

    // Sign-in, with OpenID Connect's login_hint prefilling the email.
    await page.goto(
      client.authorizationUrl({
        scope: 'content:read speech:read offline_access',
        state: generators.state(),
        code_challenge: generators.codeChallenge(generators.codeVerifier()),
        code_challenge_method: 'S256',
        login_hint: user.email,
      }),
    );
    await looksRight('Sign in');
    expect(await page.getByLabel('Email').inputValue()).toBe(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Consent: each scope in words, then its id.
    await looksRight('Allow Browser app?');
    expect(await page.locator('ul.scopes li').allInnerTexts()).toEqual([
      'Read posts, comments and profiles\ncontent:read',
      'List your voices, history and usage\nspeech:read',
      'Stay signed in (a refresh token)\noffline_access',
    ]);

    // The device pages: code entry, its Continue, the decision and its answer.
    const handle = await client.deviceAuthorization({ scope: 'speech:read' });
    await page.goto(handle.verification_uri);
    await looksRight('Connect a device');
    await page.getByLabel('Code shown on your device').fill(handle.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await looksRight('Allow Browser app?');
    expect(await page.locator('ul.scopes li').allInnerTexts()).toEqual([
      'List your voices, history and usage\nspeech:read',
    ]);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { level: 1, name: 'Request denied' }).waitFor({ timeout: 15_000 });
    expect(await accessibilityProblems(page)).toEqual([]);

    // Sign-out.
    await page.goto(`${auth.issuer}/logout`);
    await looksRight('Sign out');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor({ timeout: 15_000 });
    expect(await accessibilityProblems(page)).toEqual([]);

    // Nothing refused by the pages' Content-Security-Policy (the stylesheet included).
    expect(refused).toEqual([]);
    await context.close();
  });
});
