import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Issuer, type BaseClient } from 'openid-client';
import { freePort, stackEnv } from '@platform/testing';
import { INTERNAL_SECRET, type Platform } from './platform';

/** Auth's admin CLI (the built one, as operators run it) on the platform's database; its standard output. */
export async function authCli(platform: Platform, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.resolve(__dirname, '../../apps/auth/dist/cli/main.js'), ...args],
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
  return stdout;
}

/**
 * A confidential client for the authorization code flow, registered with auth's CLI (the built one, as
 * operators do) for `scope`, and openid-client's view of it through the gateway's discovery document.
 */
export async function codeFlowClient(
  platform: Platform,
  name: string,
  scope: string,
): Promise<{ client: BaseClient; redirectUri: string }> {
  const redirectUri = `http://127.0.0.1:${await freePort()}/cb`;
  const stdout = await authCli(platform, [
    ...['clients:create', '--name', name, '--type', 'confidential', '--grant', 'authorization_code'],
    ...['--redirect-uri', redirectUri, '--scope', scope],
  ]);
  const registered = JSON.parse(stdout) as { client_id: string; client_secret: string };
  const issuer = await Issuer.discover(`${platform.publicUrl}/.well-known/oauth-authorization-server`);
  const client = new issuer.Client({
    client_id: registered.client_id,
    client_secret: registered.client_secret,
    redirect_uris: [redirectUri],
    response_types: ['code'],
  });
  return { client, redirectUri };
}
