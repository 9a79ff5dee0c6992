import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { authOpenApi, contentOpenApi, speechOpenApi, type ApiDocument } from '@platform/api-docs';
import { stackEnv } from '@platform/testing';
import { createApiKey, INTERNAL_SECRET, registerAccount, startPlatform, type Platform } from '../gateway/platform';
import { ensureSchemathesis, SCHEMATHESIS } from './schemathesis/venv';

const run = promisify(execFile);

/**
 * schemathesis (property-based API testing from the OpenAPI documents) against the whole platform as
 * processes: for each document, a bounded number of generated requests per operation (its examples,
 * the coverage phase's edge cases, then fuzzing), authenticated as a test account whose plan allows the
 * rate. The checks: no server error, and every status, media type and body as the document says.
 */
jest.setTimeout(1_200_000);

const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
].join(',');
const OUT = path.resolve(__dirname, '../../.stack/contract');

let platform: Platform;
let token: string;
let apiKey: string;
let client: { client_id: string; client_secret: string };
let adminClient: { client_id: string; client_secret: string };

/** A confidential client of the platform's auth, made by the admin CLI (as operators make them). */
async function createClient(scope: string): Promise<{ client_id: string; client_secret: string }> {
  const cli = path.resolve(__dirname, '../../apps/auth/dist/cli/main.js');
  const args = [
    'clients:create',
    '--name',
    `schemathesis ${scope}`,
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    scope,
  ];
  const { stdout } = await run(process.execPath, [cli, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      ...stackEnv(),
      MONGO_DB: platform.authDb,
      INTERNAL_SECRET,
      PUBLIC_URL: platform.publicUrl,
    },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as { client_id: string; client_secret: string };
}

/** Runs schemathesis on one document; resolves to its exit code and what it printed. */
async function schemathesis(
  name: string,
  document: ApiDocument,
  auth: string[],
  maxExamples: number,
): Promise<{ code: number; output: string }> {
  mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, `${name}.json`);
  writeFileSync(file, JSON.stringify(document, null, 2));
  const args = [
    '--no-color',
    'run',
    file,
    '--url',
    platform.publicUrl,
    '--checks',
    CHECKS,
    '--max-examples',
    String(maxExamples),
    '--phases',
    'examples,coverage,fuzzing',
    '--seed',
    '1',
    '--workers',
    '1',
    '--request-timeout',
    '60',
    '--output-sanitize',
    'false',
    ...auth,
  ];
  try {
    const { stdout, stderr } = await run(SCHEMATHESIS, args, {
      timeout: 900_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    };
  }
}

/**
 * The end of schemathesis's report, for the log, without its `==== … ====` banners: the last of them
 * ("2 warnings in 15.37s") has pytest's shape, and CI reads a pytest closing line that counts no passed
 * test as a run that executed no test.
 */
/** The apps' warnings and errors (log level 40 and up), printed with a failed run to tell its cause. */
function appWarnings(): string {
  const apps = { gateway: platform.gateways[0]!, auth: platform.auth, content: platform.content };
  return Object.entries(apps)
    .map(([name, app]) => {
      const lines = app
        .output()
        .split('\n')
        .filter((line) => /"level":(4|5|6)0/.test(line));
      return `${name}:\n${lines.join('\n').slice(-4000)}`;
    })
    .join('\n');
}

function summary(output: string): string {
  const at = output.lastIndexOf('SUMMARY');
  const tail = at === -1 ? output.slice(-4000) : output.slice(Math.max(0, output.lastIndexOf('\n', at - 200)));
  return tail
    .split('\n')
    .filter((line) => !/^\s*={3,}.*={3,}\s*$/.test(line))
    .join('\n');
}

beforeAll(async () => {
  await ensureSchemathesis();
  const roomy = JSON.stringify({ free: { rps: 500, concurrency: 20 }, anonymous: { rps: 500, concurrency: 20 } });
  platform = await startPlatform({ speechWorkers: {}, gatewayEnv: { PLAN_LIMITS_JSON: roomy } });
  const account = await registerAccount(platform.publicUrl, 'Schemathesis');
  token = account.token;
  apiKey = (await createApiKey(platform.auth.url, account.id)).key;
  client = await createClient('speech:read content:read');
  adminClient = await createClient('admin');
}, 900_000);

afterAll(async () => {
  await platform?.stop();
});

describe('schemathesis finds no server error and no response that departs from the document', () => {
  it('content API (a signed-in user’s access token)', async () => {
    const result = await schemathesis('content', contentOpenApi(), ['--header', `Authorization: Bearer ${token}`], 20);
    console.log(`schemathesis, content API:\n${summary(result.output)}`);
    if (result.code !== 0) console.log(appWarnings());
    expect({ code: result.code, output: result.code === 0 ? '' : result.output.slice(-20_000) }).toEqual({
      code: 0,
      output: '',
    });
  });

  it('auth API (a client authenticated with client_secret_basic)', async () => {
    const result = await schemathesis(
      'auth',
      authOpenApi(),
      ['--auth', `${client.client_id}:${client.client_secret}`],
      20,
    );
    console.log(`schemathesis, auth API:\n${summary(result.output)}`);
    if (result.code !== 0) console.log(appWarnings());
    expect({ code: result.code, output: result.code === 0 ? '' : result.output.slice(-20_000) }).toEqual({
      code: 0,
      output: '',
    });
  });

  it('auth API, administration (a client’s own access token with the admin scope)', async () => {
    const issued = await fetch(`${platform.publicUrl}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${adminClient.client_id}:${adminClient.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=admin',
    });
    expect(issued.status).toBe(200);
    const { access_token: adminToken } = (await issued.json()) as { access_token: string };
    // Not key rotation and retirement: rotating twice or retiring the signing key ends the token's life
    // (tests/contract/auth-document.e2e.test.ts calls both).
    const result = await schemathesis(
      'auth-admin',
      authOpenApi(),
      [
        '--include-tag',
        'Administration',
        '--exclude-operation-id',
        'rotateKey',
        '--exclude-operation-id',
        'retireKey',
        '--header',
        `Authorization: Bearer ${adminToken}`,
      ],
      20,
    );
    console.log(`schemathesis, auth API administration:\n${summary(result.output)}`);
    if (result.code !== 0) console.log(appWarnings());
    expect({ code: result.code, output: result.code === 0 ? '' : result.output.slice(-20_000) }).toEqual({
      code: 0,
      output: '',
    });
  });

  it('speech API (an API key)', async () => {
    const result = await schemathesis('speech', speechOpenApi(), ['--header', `xi-api-key: ${apiKey}`], 10);
    console.log(`schemathesis, speech API:\n${summary(result.output)}`);
    if (result.code !== 0) console.log(appWarnings());
    expect({ code: result.code, output: result.code === 0 ? '' : result.output.slice(-20_000) }).toEqual({
      code: 0,
      output: '',
    });
  });
});
