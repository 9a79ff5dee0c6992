#!/usr/bin/env node
/**
 * Admin command line: `node apps/auth/dist/cli/main.js <command> [options]`, with the same environment
 * as the auth app (MONGO_URL, MONGO_DB, REDIS_URL, INTERNAL_SECRET, PUBLIC_URL). Prints JSON.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { connectMongo, connectRedis } from '@platform/stores';
import { toPublicAccount } from '../accounts/account-model';
import { accountPatchInput, createAccount, findAccount, findAccountByEmail, newAccountInput } from '../accounts/accounts';
import { unlockLogins } from '../accounts/login-limits';
import { createApiKey, listApiKeys, revokeApiKey, toPublicApiKey } from '../api-keys/api-keys';
import { backchannelRegistrationProblem } from '../backchannel-logout/client-metadata';
import { createClient, listClients, toPublicClient, type NewClientInput } from '../clients/clients';
import { ADMIN_CLI_USAGE, auditCli, runAdminCommand, updateAccountFromCli, type AdminCliContext } from '../admin/admin-cli';
import { loadAuthConfig } from '../config';
import { signingKeys } from '../keys/signing-keys';
import { authModels } from '../auth-models';
import { newPassword, secretOnCommandLine } from './secret-input';

const USAGE = `usage: node apps/auth/dist/cli/main.js <command> [options]
  clients:create  --name N --type confidential|public --grant G... [--redirect-uri U...] [--scope S...]
                  [--post-logout-redirect-uri U...]  (OpenID Connect RP-Initiated Logout)
                  [--backchannel-logout-uri U] [--backchannel-logout-session-required]  (Back-Channel Logout)
                  [--resource R...] [--jwks-file F] [--client-id ID] [--no-secret]
                  [--exchange-client ID...]  (token exchange: other clients whose tokens it may exchange)
                  [--security-profile fapi2]  (FAPI 2.0 Security Profile; with --jwks-file and --no-secret)
                  [--introspection-signed-response-alg ES256]  (RFC 9701 JWT introspection answers)
  clients:list
  accounts:create --email E --name N [--password-stdin] [--role ADMIN|MODERATOR|USER...] [--plan free|starter|creator|pro|enterprise]
                  (the password is typed at a prompt that does not echo, or piped with --password-stdin;
                  never an argument, which the process table shows)
  accounts:list
  accounts:update --account <id or email> [--role ADMIN|MODERATOR|USER...] [--status active|disabled] [--plan free|starter|creator|pro|enterprise]
                  (a role or status change revokes every token the account holds at once)
  logins:unlock   [--email E] [--address A]   (forget sign-in failures; ends a lock)
  api-keys:create --account <id or email> [--name N]
  api-keys:list   [--account <id or email>]
  api-keys:revoke --id KEY_ID
  keys:rotate
${ADMIN_CLI_USAGE}
  (every change is appended to the admin_audit log, as the operating-system user running the CLI)`;

const options = {
  name: { type: 'string' },
  type: { type: 'string' },
  grant: { type: 'string', multiple: true },
  'redirect-uri': { type: 'string', multiple: true },
  'post-logout-redirect-uri': { type: 'string', multiple: true },
  'backchannel-logout-uri': { type: 'string' },
  'backchannel-logout-session-required': { type: 'boolean' },
  scope: { type: 'string', multiple: true },
  resource: { type: 'string', multiple: true },
  'jwks-file': { type: 'string' },
  'client-id': { type: 'string' },
  'no-secret': { type: 'boolean' },
  'exchange-client': { type: 'string', multiple: true },
  'security-profile': { type: 'string' },
  'introspection-signed-response-alg': { type: 'string' },
  email: { type: 'string' },
  // Declared only to be refused with a message naming the ways that are allowed (cli/secret-input.ts).
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  role: { type: 'string', multiple: true },
  plan: { type: 'string' },
  account: { type: 'string' },
  id: { type: 'string' },
  address: { type: 'string' },
  status: { type: 'string' },
  kid: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  'expires-in': { type: 'string' },
  'max-uses': { type: 'string' },
  help: { type: 'boolean' },
} as const;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options, allowPositionals: true, strict: true });
  const command = positionals[0];
  if (!command || values.help) {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (values.password !== undefined) throw secretOnCommandLine('--password');
  // Read before connecting: a prompt must not hold database connections open while the operator types.
  const password = command === 'accounts:create' ? await newPassword(values['password-stdin'] === true) : undefined;
  const config = loadAuthConfig();
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = await connectRedis(config.REDIS_URL);
  const models = await authModels(mongo);
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  const keys = signingKeys(mongo, config.INTERNAL_SECRET, { rotateAfterSeconds: Number.MAX_SAFE_INTEGER });
  const admin: AdminCliContext = { config, deps: { config, redis, ...models }, keys };
  const accountOf = async (ref: string) => (ref.includes('@') ? findAccountByEmail(models.accounts, ref) : findAccount(models.accounts, ref));
  try {
    switch (command) {
      case 'clients:create': {
        const input: NewClientInput = {
          name: values.name ?? '',
          type: values.type as 'confidential' | 'public',
          grant_types: (values.grant ?? []) as NewClientInput['grant_types'],
          redirect_uris: values['redirect-uri'] ?? [],
          post_logout_redirect_uris: values['post-logout-redirect-uri'] ?? [],
          scopes: (values.scope ?? []).flatMap((s) => s.split(' ')).filter(Boolean),
          resources: values.resource ?? [],
          secret: !values['no-secret'],
          ...(values['client-id'] ? { client_id: values['client-id'] } : {}),
          ...(values['exchange-client'] ? { token_exchange: { allowed_clients: values['exchange-client'] } } : {}),
          ...(values['jwks-file'] ? { jwks: JSON.parse(fs.readFileSync(values['jwks-file'], 'utf8')) as NewClientInput['jwks'] } : {}),
          ...(values['security-profile'] ? { security_profile: values['security-profile'] as NewClientInput['security_profile'] } : {}),
          ...(values['introspection-signed-response-alg'] ? { introspection_signed_response_alg: values['introspection-signed-response-alg'] as NewClientInput['introspection_signed_response_alg'] } : {}),
          ...(values['backchannel-logout-uri'] ? { backchannel_logout_uri: values['backchannel-logout-uri'] } : {}),
          ...(values['backchannel-logout-session-required'] ? { backchannel_logout_session_required: true } : {}),
        };
        const logoutProblem = backchannelRegistrationProblem(input, config.BACKCHANNEL_LOGOUT_ALLOW_PRIVATE);
        if (logoutProblem) throw new Error(logoutProblem);
        const { client, secret } = await createClient(models.clients, config.INTERNAL_SECRET, input, config.PUBLIC_URL);
        const { client_id: id, created_at: _created, ...fields } = toPublicClient(client);
        await auditCli(admin, { action: 'client.create', target: { type: 'client', id }, changes: fields });
        print({ ...toPublicClient(client), ...(secret ? { client_secret: secret } : {}) });
        break;
      }
      case 'clients:list':
        print((await listClients(models.clients)).map(toPublicClient));
        break;
      case 'accounts:create': {
        // The internal endpoint's schema: roles and plan from their lists, the password policy.
        const parsed = newAccountInput.safeParse({
          email: values.email ?? '',
          name: values.name ?? '',
          password,
          ...(values.role ? { roles: values.role } : {}),
          ...(values.plan ? { plan: values.plan } : {}),
        });
        if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `--${i.path[0] === 'roles' ? 'role' : String(i.path[0])}: ${i.message}`).join('; '));
        const account = toPublicAccount(await createAccount(models.accounts, parsed.data));
        const { id, createdAt: _createdAt, ...changes } = account;
        await auditCli(admin, { action: 'account.create', target: { type: 'account', id }, changes });
        print(account);
        break;
      }
      case 'accounts:update': {
        const account = values.account ? await accountOf(values.account) : null;
        if (!account) throw new Error('--account must name an existing account (id or email)');
        const patch = accountPatchInput.parse({
          ...(values.role ? { roles: values.role } : {}),
          ...(values.status ? { status: values.status } : {}),
          ...(values.plan ? { plan: values.plan } : {}),
        });
        print(await updateAccountFromCli(admin, account._id, patch));
        break;
      }
      case 'accounts:list':
        print((await models.accounts.find({}).sort({ createdAt: 1 }).limit(1000).lean()).map(toPublicAccount));
        break;
      case 'logins:unlock': {
        if (values.email === undefined && values.address === undefined) throw new Error('--email or --address is required');
        const who = { ...(values.email !== undefined ? { email: values.email } : {}), ...(values.address !== undefined ? { address: values.address } : {}) };
        const cleared = await unlockLogins(redis, config.MONGO_DB, who);
        await auditCli(admin, { action: 'logins.unlock', target: { type: 'sign_in_limit', id: values.email ?? values.address ?? '' }, changes: { ...who, cleared } });
        print({ cleared });
        break;
      }
      case 'api-keys:create': {
        const account = values.account ? await accountOf(values.account) : null;
        if (!account) throw new Error('--account must name an existing account (id or email)');
        const { key, doc } = await createApiKey(models.apiKeys, account._id, values.name ?? 'default');
        const { id, createdAt: _createdAt, revoked: _revoked, prefix: _prefix, ...changes } = toPublicApiKey(doc);
        await auditCli(admin, { action: 'api_key.create', target: { type: 'api_key', id }, changes });
        print({ ...toPublicApiKey(doc), key });
        break;
      }
      case 'api-keys:list': {
        const account = values.account ? await accountOf(values.account) : undefined;
        if (values.account && !account) throw new Error('no such account');
        print((await listApiKeys(models.apiKeys, account?._id)).map(toPublicApiKey));
        break;
      }
      case 'api-keys:revoke':
        if (!values.id || !(await revokeApiKey(models.apiKeys, redis, values.id))) throw new Error('no such active API key');
        await auditCli(admin, { action: 'api_key.revoke', target: { type: 'api_key', id: values.id }, changes: {} });
        print({ revoked: values.id });
        break;
      default: {
        // clients:get/update/rotate-secret/delete, accounts:get/find, keys:*, audit:list (admin/admin-cli.ts).
        const result = await runAdminCommand(command, values, admin);
        if (result === undefined) {
          process.stderr.write(`unknown command ${command}\n${USAGE}\n`);
          return 2;
        }
        print(result);
      }
    }
    return 0;
  } finally {
    await Promise.allSettled([mongo.close(), redis.quit()]);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
