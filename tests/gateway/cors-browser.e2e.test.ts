import http from 'node:http';
import type { Browser } from 'playwright-core';
import { freePort } from '@platform/testing';
import { launchChromium } from '../playground/chromium';
import { authCli } from './code-flow-client';
import { startPlatform, type Platform } from './platform';

/**
 * A browser app on another origin (docs/security.md "CORS", docs/auth.md "A browser app on another
 * origin"): a page served by a small server of the test's own, on another port than the gateway's,
 * calls `/token` (client credentials), `/graphql` and the speech API with fetch() in Debian's
 * Chromium. With its origin in CORS_ALLOWED_ORIGINS every call succeeds and the exposed headers are
 * readable; from an origin not listed the browser refuses every one of them.
 */
jest.setTimeout(180_000);

let platform: Platform;
let browser: Browser;
const sites: http.Server[] = [];
let allowedOrigin: string;
let deniedOrigin: string;
let client: { client_id: string; client_secret: string };

/** A site serving one empty page, as a single-page app's host would. */
async function site(): Promise<string> {
  const port = await freePort();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  sites.push(server);
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  allowedOrigin = await site();
  deniedOrigin = await site();
  platform = await startPlatform({
    gatewayEnv: {
      CORS_ALLOWED_ORIGINS: allowedOrigin,
      PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }),
    },
  });
  const stdout = await authCli(platform, [
    ...['clients:create', '--name', 'spa-backend', '--type', 'confidential', '--grant', 'client_credentials'],
    ...['--scope', 'content:read speech:read', '--resource', platform.publicUrl],
  ]);
  client = JSON.parse(stdout) as typeof client;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await Promise.all(sites.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

interface Outcome {
  token: string;
  graphql: string;
  speech: string;
  rateLimitHeader: string | null;
}

/** The page's script: each call's status and body, or `blocked` when the browser refused it. */
async function callsFrom(origin: string): Promise<Outcome> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ gateway, clientId, clientSecret }) => {
        const attempt = async (call: () => Promise<string>) => {
          try {
            return await call();
          } catch (err) {
            return `blocked: ${(err as Error).name}`;
          }
        };
        let accessToken = '';
        const token = await attempt(async () => {
          const res = await fetch(`${gateway}/token`, {
            method: 'POST',
            headers: {
              authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}`,
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: new URLSearchParams({ grant_type: 'client_credentials', resource: gateway }),
          });
          accessToken = ((await res.json()) as { access_token?: string }).access_token ?? '';
          return `${res.status} ${accessToken ? 'token' : 'none'}`;
        });
        const graphql = await attempt(async () => {
          const res = await fetch(`${gateway}/graphql`, {
            method: 'POST',
            headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ __typename }' }),
          });
          return `${res.status} ${JSON.stringify(await res.json())}`;
        });
        let rateLimitHeader: string | null = null;
        const speech = await attempt(async () => {
          const res = await fetch(`${gateway}/v1/models`, { headers: { authorization: `Bearer ${accessToken}` } });
          rateLimitHeader = res.headers.get('x-ratelimit-remaining');
          const body = (await res.json()) as { models?: unknown[] };
          return `${res.status} ${Array.isArray(body.models) ? 'models' : 'other'}`;
        });
        return { token, graphql, speech, rateLimitHeader };
      },
      { gateway: platform.publicUrl, clientId: client.client_id, clientSecret: client.client_secret },
    );
  } finally {
    await context.close();
  }
}

it('a page on an allowed origin gets a token, a GraphQL answer and the speech API, and reads the exposed headers', async () => {
  const outcome = await callsFrom(allowedOrigin);
  expect(outcome).toEqual({
    token: '200 token',
    graphql: '200 {"data":{"__typename":"Query"}}',
    speech: '200 models',
    rateLimitHeader: expect.stringMatching(/^\d+$/) as unknown,
  });
});

it('a page on an origin not in CORS_ALLOWED_ORIGINS is refused every call by the browser', async () => {
  const outcome = await callsFrom(deniedOrigin);
  expect(outcome).toEqual({
    token: 'blocked: TypeError',
    graphql: 'blocked: TypeError',
    speech: 'blocked: TypeError',
    rateLimitHeader: null,
  });
});
