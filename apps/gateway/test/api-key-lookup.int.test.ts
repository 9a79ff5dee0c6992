import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { AuthUnavailableError, authApiKeyLookup } from '../src/auth/api-key-lookup';

/**
 * The gateway's reading of auth's key lookup answer: a key grants the speech scopes auth names, an
 * answer without a scope (an auth that predates key scopes) grants both, and a scope naming no speech
 * scope is malformed: it must never widen to "all".
 */
let server: http.Server;
let answer: unknown;
let url: string;
const agent = new Agent();

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  await new Promise((resolve) => server.close(resolve));
});

const base = { accountId: 'acc1', plan: 'free', keyId: 'key_1', roles: ['USER'] };
const lookup = () => authApiKeyLookup(url, 'secret', agent, 2_000)('sk_x');

it.each([
  ['speech:read', 'speech:read'],
  ['speech:write speech:read', 'speech:read speech:write'],
  ['speech:read content:write', 'speech:read'],
])('scope %j grants %j', async (scope, granted) => {
  answer = { ...base, scope };
  expect((await lookup())?.scope).toBe(granted);
});

it('no scope in the answer: both speech scopes', async () => {
  answer = base;
  expect((await lookup())?.scope).toBe('speech:read speech:write');
});

it.each([[''], ['content:write'], [['speech:read']]])(
  'scope %j is a malformed answer (503), never all scopes',
  async (scope) => {
    answer = { ...base, scope };
    await expect(lookup()).rejects.toBeInstanceOf(AuthUnavailableError);
  },
);
