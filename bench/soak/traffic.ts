// What the shared traffic mix (tests/support/traffic-mix.ts) needs from a running platform: accounts
// that may write content, an API key for the speech API, and a confidential OAuth client with the
// client credentials grant (made with auth's admin CLI, as operators make one).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_WEIGHTS, createTrafficMix, stackEnv, type TrafficMix } from '@platform/testing';
import { repoRoot } from '../../tests/support/stack-env';
import { INTERNAL_SECRET, createApiKey, registerAccount, type Platform } from '../../tests/gateway/platform';

const run = promisify(execFile);

/**
 * content allows 20 `createComment` calls per account per minute (docs/content.md); the mix takes the
 * accounts in turn, so each is given at most half of that.
 */
const COMMENTS_PER_ACCOUNT_PER_MINUTE = 10;

async function oauthClient(platform: Platform): Promise<{ clientId: string; clientSecret: string }> {
  const cli = path.join(repoRoot(), 'apps/auth/dist/cli/main.js');
  const args = [
    'clients:create',
    '--name',
    'soak',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'speech:read',
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
  const client = JSON.parse(stdout) as { client_id: string; client_secret: string };
  return { clientId: client.client_id, clientSecret: client.client_secret };
}

/** The traffic mix at `ratePerSecond` operations per second against the platform's gateway (not started yet). */
export async function soakTraffic(platform: Platform, ratePerSecond: number): Promise<TrafficMix> {
  const total = Object.values(DEFAULT_WEIGHTS).reduce((sum, w) => sum + w, 0);
  const commentsPerMinute = (60 * ratePerSecond * DEFAULT_WEIGHTS['create-comment']) / total;
  const accounts = [];
  for (let i = 0; i < Math.max(2, Math.ceil(commentsPerMinute / COMMENTS_PER_ACCOUNT_PER_MINUTE)); i += 1) {
    accounts.push(await registerAccount(platform.publicUrl, `Soak ${i}`));
  }
  return createTrafficMix({
    gateways: () => [platform.publicUrl],
    issuer: platform.publicUrl,
    oauthClient: await oauthClient(platform),
    apiKey: (await createApiKey(platform.auth.url, accounts[0]!.id)).key,
    contentTokens: accounts.map((a) => a.token),
    ratePerSecond,
  });
}
