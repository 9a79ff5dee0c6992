import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, decodeJwt, exportJWK, type JWK } from 'jose';
import { Issuer, type BaseClient } from 'openid-client';
import { cli, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

// DPOP_REQUIRE_NONCE=true at /token (RFC 9449 §8): the first proof without a nonce is answered
// 400 use_dpop_nonce with a DPoP-Nonce header; the retry with that nonce gets its token.
jest.setTimeout(60_000);

let auth: RunningAuth;
let issuer: Issuer<BaseClient>;
let client: CreatedClient;
// A node KeyObject, which both jose (proofs by hand) and openid-client (its DPoP option) take.
let key: { privateKey: KeyObject; jwk: JWK; jkt: string };

beforeAll(async () => {
  auth = await startAuth({ DPOP_REQUIRE_NONCE: 'true' });
  client = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Nonce client',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'speech:read',
  ]);
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = await exportJWK(pair.publicKey);
  key = { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
  issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

async function proof(nonce?: string): Promise<string> {
  return new SignJWT({
    jti: randomUUID(),
    htm: 'POST',
    htu: `${auth.issuer}/token`,
    iat: Math.floor(Date.now() / 1000),
    ...(nonce ? { nonce } : {}),
  })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })
    .sign(key.privateKey);
}

function tokenRequest(dpop: string): Promise<Response> {
  return fetch(`${auth.issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      dpop,
    },
    body: 'grant_type=client_credentials&scope=speech%3Aread',
  });
}

it('answers use_dpop_nonce with a DPoP-Nonce header, then accepts the retry carrying it', async () => {
  const first = await tokenRequest(await proof());
  expect(first.status).toBe(400);
  expect(await first.json()).toMatchObject({ error: 'use_dpop_nonce' });
  const nonce = first.headers.get('dpop-nonce');
  expect(nonce).toMatch(/^[A-Za-z0-9_-]{16,}$/);
  expect(first.headers.get('cache-control')).toBe('no-store');

  const retry = await tokenRequest(await proof(nonce!));
  expect(retry.status).toBe(200);
  const body = (await retry.json()) as { access_token: string; token_type: string };
  expect(body.token_type).toBe('DPoP');
  expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.jkt });
  // Every token response hands out a fresh nonce for the next request.
  expect(retry.headers.get('dpop-nonce')).toMatch(/^[A-Za-z0-9_-]{16,}$/);
});

it('refuses a made-up nonce with use_dpop_nonce and a fresh nonce', async () => {
  const res = await tokenRequest(await proof('made-up-nonce-value-0123456789'));
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: 'use_dpop_nonce' });
  expect(res.headers.get('dpop-nonce')).toMatch(/^[A-Za-z0-9_-]{16,}$/);
});

it('still refuses a replayed proof even when its nonce is valid', async () => {
  const nonce = (await tokenRequest(await proof())).headers.get('dpop-nonce')!;
  const once = await proof(nonce);
  expect((await tokenRequest(once)).status).toBe(200);
  const replay = await tokenRequest(once);
  expect(replay.status).toBe(400);
  expect(await replay.json()).toMatchObject({ error: 'invalid_dpop_proof' });
});

it('openid-client (through discovery) retries with the server nonce on its own', async () => {
  const oc = new issuer.Client({
    client_id: client.client_id,
    client_secret: client.client_secret!,
    token_endpoint_auth_method: 'client_secret_basic',
  });
  const set = await oc.grant({ grant_type: 'client_credentials', scope: 'speech:read' }, { DPoP: key.privateKey });
  expect(set.token_type).toBe('DPoP');
  expect(decodeJwt(set.access_token!).cnf).toEqual({ jkt: key.jkt });
});
