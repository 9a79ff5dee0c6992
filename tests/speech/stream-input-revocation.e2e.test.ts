import {
  createApiKey,
  eventually,
  registerAccount,
  revokeApiKey,
  startPlatform,
  type Platform,
} from '../gateway/platform';
import { connectSession, errorOf } from './support/ws-session';

/**
 * A stream-input socket authenticates once, when it opens; its key is checked again before every
 * segment it synthesises, so revoking the key (or a change of the account's rights, which auth
 * announces as its keys' revocation) stops an open socket at its next generation, as it does the next
 * HTTP request. The real gateway and auth as processes; no synthesis worker is needed, since the
 * refusal comes before a job is queued.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform();
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

it('a key revoked while its socket is open is refused at the next segment: invalid_api_key, close 1008', async () => {
  const account = await registerAccount(platform.publicUrl, 'Revoked streamer');
  const { id, key } = await createApiKey(platform.auth.url, account.id);
  const wsUrl = platform.publicUrl.replace(/^http/, 'ws');
  const s = connectSession(`${wsUrl}/v1/text-to-speech/${RACHEL}/stream-input`);
  await s.opened;
  s.ws.send(JSON.stringify({ text: ' ', xi_api_key: key }));
  // The session is authenticated once the key is accepted: the same key works over HTTP too.
  expect((await fetch(`${platform.publicUrl}/v1/models`, { headers: { 'xi-api-key': key } })).status).toBe(200);

  await revokeApiKey(platform.auth.url, id);
  // The gateway has dropped the key once an HTTP request with it is refused.
  await eventually(
    async () => (await fetch(`${platform.publicUrl}/v1/models`, { headers: { 'xi-api-key': key } })).status === 401,
    10_000,
  );
  expect(s.ws.readyState).toBe(s.ws.OPEN);

  s.ws.send(JSON.stringify({ text: 'Hello there. ' }));
  s.ws.send(JSON.stringify({ text: '' }));
  expect((await s.closed).code).toBe(1008);
  expect(errorOf(s)).toEqual({ status: 'invalid_api_key', message: 'the API key was revoked or its account changed' });
  expect(s.binary).toHaveLength(0);
}, 60_000);
