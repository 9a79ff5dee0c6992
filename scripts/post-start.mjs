#!/usr/bin/env node
// Development seed, run by `npm start` once the apps are ready (and safe to run again): creates an admin
// account, a confidential client with every grant, a public device-flow client and a speech API key,
// prints them and writes .stack/dev-credentials.json. If that file still works, nothing new is created.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = process.env.DEV_CREDENTIALS_FILE ?? path.join(root, '.stack', 'dev-credentials.json');
const issuer = (process.env.PUBLIC_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const authUrl = (process.env.AUTH_URL ?? 'http://127.0.0.1:8081').replace(/\/+$/, '');
const SCOPES = 'content:read content:write speech:read speech:write offline_access';
const RESOURCES = [issuer, `${issuer}/api`, `${issuer}/v1`];

/**
 * Every grant auth serves, as its RFC 8414 metadata advertises them (`grant_types_supported`, built from
 * auth's registry of grants): the running server is the one the client is registered with.
 */
async function supportedGrants() {
  const res = await fetch(`${authUrl}/.well-known/oauth-authorization-server`);
  if (!res.ok) throw new Error(`auth metadata: HTTP ${res.status}`);
  const { grant_types_supported: grants } = await res.json();
  if (!Array.isArray(grants) || !grants.length) throw new Error('auth metadata lists no grant_types_supported');
  return grants;
}

/** `stdin`: piped to the CLI (a password with --password-stdin: the CLI takes no secret as an argument). */
function cli(args, stdin = '') {
  const out = execFileSync(process.execPath, [path.join(root, 'apps/auth/dist/cli/main.js'), ...args], {
    env: process.env,
    encoding: 'utf8',
    input: stdin,
  });
  return JSON.parse(out);
}

async function stillWorks(creds) {
  if (creds.issuer !== issuer) return false;
  try {
    const res = await fetch(`${authUrl}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(creds.confidentialClient.client_id)}:${encodeURIComponent(creds.confidentialClient.client_secret)}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    return res.status === 200;
  } catch {
    return false;
  }
}

function show(creds) {
  console.log(`dev credentials (${path.relative(root, file)}):
  issuer                ${creds.issuer}
  admin                 ${creds.admin.email} / ${creds.admin.password}
  confidential client   ${creds.confidentialClient.client_id} / ${creds.confidentialClient.client_secret}
  device client         ${creds.deviceClient.client_id}
  speech API key        ${creds.apiKey}
playground: open ${issuer}/ in a browser (sign in as the admin above, or create an account there)`);
}

const existing = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
if (existing && (await stillWorks(existing))) {
  show(existing);
  process.exit(0);
}

const suffix = randomBytes(3).toString('hex');
const password = randomBytes(12).toString('base64url');
let adminEmail = 'admin@platform.local';
let admin;
try {
  admin = cli(
    [
      'accounts:create',
      '--email',
      adminEmail,
      '--name',
      'Admin',
      '--password-stdin',
      '--role',
      'ADMIN',
      '--role',
      'USER',
      '--plan',
      'pro',
    ],
    password,
  );
} catch {
  // The fixed address exists from an earlier seed whose credentials file is gone: make a new admin.
  adminEmail = `admin+${suffix}@platform.local`;
  admin = cli(
    [
      'accounts:create',
      '--email',
      adminEmail,
      '--name',
      'Admin',
      '--password-stdin',
      '--role',
      'ADMIN',
      '--role',
      'USER',
      '--plan',
      'pro',
    ],
    password,
  );
}
const resources = RESOURCES.flatMap((r) => ['--resource', r]);
const confidential = cli([
  'clients:create',
  '--client-id',
  `dev-confidential-${suffix}`,
  '--name',
  'Development confidential client',
  '--type',
  'confidential',
  ...(await supportedGrants()).flatMap((g) => ['--grant', g]),
  '--redirect-uri',
  'http://127.0.0.1:3000/callback',
  '--redirect-uri',
  'https://oauth.pstmn.io/v1/callback',
  '--scope',
  SCOPES,
  ...resources,
]);
const device = cli([
  'clients:create',
  '--client-id',
  `dev-device-${suffix}`,
  '--name',
  'Development device client',
  '--type',
  'public',
  '--grant',
  'urn:ietf:params:oauth:grant-type:device_code',
  '--grant',
  'refresh_token',
  '--scope',
  SCOPES,
  ...resources,
]);
const key = cli(['api-keys:create', '--account', admin.id, '--name', 'development']);
const creds = {
  issuer,
  apiKey: key.key,
  admin: { id: admin.id, email: adminEmail, password },
  confidentialClient: { client_id: confidential.client_id, client_secret: confidential.client_secret },
  deviceClient: { client_id: device.client_id },
};
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
show(creds);
