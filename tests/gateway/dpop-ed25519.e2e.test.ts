import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { exportJWK, type JWK } from 'jose';
import { Issuer, type BaseClient } from 'openid-client';
import { stackEnv } from '@platform/testing';
import { INTERNAL_SECRET, json, startPlatform, type Platform } from './platform';

/**
 * DPoP proofs signed with Ed25519 keys, named as clients name them: `Ed25519` (RFC 9864,
 * Fully-Specified Algorithms for JOSE: what current oauth4webapi and openid-client send) and
 * `EdDSA` (RFC 8037: what openid-client 5, installed here, sends). A token bound to such a key is
 * issued by auth's /token and used through the gateway on the speech API; the DPoP challenge's
 * `algs` is auth's `dpop_signing_alg_values_supported`; a proof whose `alg` its key cannot make is
 * refused at both.
 */
const run = promisify(execFile);
let platform: Platform;
let gateway: string;
let client: { client_id: string; client_secret: string };
let issuer: Issuer<BaseClient>;

interface OkpKey {
  privateKey: KeyObject;
  jwk: JWK;
}

function okpKey(curve: 'ed25519' | 'ed448' = 'ed25519'): Promise<OkpKey> {
  const pair = generateKeyPairSync(curve as 'ed25519');
  return exportJWK(pair.publicKey).then((jwk) => ({ privateKey: pair.privateKey, jwk }));
}

/**
 * A proof signed by hand (node:crypto signs Ed25519 and Ed448 as the JWS EdDSA family does), so the
 * header can carry any `alg` and any `jwk`, as a client (or a forger) writes them.
 */
function proof(
  key: OkpKey,
  alg: string,
  method: string,
  url: string,
  accessToken?: string,
  jwk: JWK = key.jwk,
): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const payload = {
    jti: randomUUID(),
    htm: method,
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    ...(accessToken ? { ath: createHash('sha256').update(accessToken).digest('base64url') } : {}),
  };
  const input = `${part({ typ: 'dpop+jwt', alg, jwk })}.${part(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), key.privateKey).toString('base64url')}`;
}

async function tokenWithProof(dpop: string): Promise<Response> {
  return fetch(`${gateway}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      dpop,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'speech:read',
      resource: `${platform.publicUrl}/v1`,
    }).toString(),
  });
}

beforeAll(async () => {
  platform = await startPlatform();
  gateway = platform.gateways[0]!.url;
  const { stdout } = await run(
    process.execPath,
    [
      path.resolve(__dirname, '../../apps/auth/dist/cli/main.js'),
      'clients:create',
      '--name',
      'ed25519-dpop',
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--scope',
      'speech:read',
      '--resource',
      `${platform.publicUrl}/v1`,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...stackEnv(),
        MONGO_DB: platform.authDb,
        INTERNAL_SECRET,
        PUBLIC_URL: platform.publicUrl,
      },
      timeout: 30_000,
    },
  );
  client = JSON.parse(stdout) as typeof client;
  issuer = await Issuer.discover(`${gateway}/.well-known/oauth-authorization-server`);
}, 180_000);

afterAll(async () => {
  await platform?.stop();
});

it('metadata names Ed25519 and EdDSA, and the gateway challenge offers exactly that list', async () => {
  const supported = issuer.metadata.dpop_signing_alg_values_supported as string[];
  expect(supported).toEqual(expect.arrayContaining(['Ed25519', 'EdDSA', 'ES256']));
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const forged = `${part({ alg: 'ES256', typ: 'at+jwt', kid: 'none' })}.${part({ sub: 'x' })}.${part('sig')}`;
  const res = await fetch(`${gateway}/v1/models`, { headers: { authorization: `DPoP ${forged}` } });
  expect(res.status).toBe(401);
  const challenge = res.headers.get('www-authenticate') ?? '';
  const algs = /^DPoP .*algs="([^"]*)"/.exec(challenge)?.[1];
  expect(algs?.split(' ')).toEqual(supported);
});

it('a client naming the algorithm Ed25519 (RFC 9864) gets a DPoP token and uses it on the speech API', async () => {
  const key = await okpKey();
  const res = await tokenWithProof(proof(key, 'Ed25519', 'POST', `${platform.publicUrl}/token`));
  const body = (await json(res)) as { access_token?: string; token_type?: string };
  expect({ status: res.status, token_type: body.token_type }).toEqual({ status: 200, token_type: 'DPoP' });
  const token = body.access_token!;
  const url = `${platform.publicUrl}/v1/models`;
  const models = await fetch(`${gateway}/v1/models`, {
    headers: { authorization: `DPoP ${token}`, dpop: proof(key, 'Ed25519', 'GET', url, token) },
  });
  expect(models.status).toBe(200);
  expect(await models.json()).toEqual({ models: expect.any(Array) });
});

it('openid-client with an Ed25519 key (it names the algorithm EdDSA) gets a DPoP token and reads the speech API with it', async () => {
  const key = await okpKey();
  const oc = new issuer.Client({ client_id: client.client_id, client_secret: client.client_secret });
  const set = await oc.grant(
    { grant_type: 'client_credentials', scope: 'speech:read', resource: `${platform.publicUrl}/v1` },
    { DPoP: key.privateKey },
  );
  expect(set.token_type).toBe('DPoP');
  // openid-client addresses the resource by its public URL; the gateway checks htu against PUBLIC_URL.
  const res = await oc.requestResource(`${platform.publicUrl}/v1/models`, set.access_token!, { DPoP: key.privateKey });
  expect(res.statusCode).toBe(200);
});

it('a proof whose alg its key cannot make is refused at /token and at the gateway', async () => {
  const ed448 = await okpKey('ed448');
  const ed25519 = await okpKey();
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecJwk = await exportJWK(ec.publicKey);
  const tokenUrl = `${platform.publicUrl}/token`;
  for (const dpop of [
    proof(ed448, 'Ed25519', 'POST', tokenUrl), // a valid Ed448 signature under the Ed25519 name
    proof(ed25519, 'ES256', 'POST', tokenUrl), // an OKP key under an ECDSA name
    proof(ed25519, 'Ed25519', 'POST', tokenUrl, undefined, ecJwk), // an EC key under the Ed25519 name
  ]) {
    const res = await tokenWithProof(dpop);
    expect({ status: res.status, body: await json(res) }).toEqual({
      status: 400,
      body: { error: 'invalid_dpop_proof', error_description: expect.stringMatching(/alg does not fit/) },
    });
  }
  const ok = (await (await tokenWithProof(proof(ed25519, 'Ed25519', 'POST', tokenUrl))).json()) as {
    access_token: string;
  };
  const url = `${platform.publicUrl}/v1/models`;
  const refused = await fetch(`${gateway}/v1/models`, {
    headers: { authorization: `DPoP ${ok.access_token}`, dpop: proof(ed448, 'Ed25519', 'GET', url, ok.access_token) },
  });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof".*alg does not fit/);
});
