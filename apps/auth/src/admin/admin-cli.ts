import os from 'node:os';
import { changeAccount } from '../accounts/account-changes';
import { toPublicAccount } from '../accounts/account-model';
import { findAccountByEmail } from '../accounts/accounts';
import type { AuthConfig } from '../config';
import type { Deps } from '../deps';
import type { SigningKeys } from '../keys/signing-keys';
import { getAccount, listAccountsPage } from './admin-accounts';
import { appendAudit, listAudit, type NewAuditEntry } from './admin-audit';
import { deleteClient, getClient, rotateClientSecret, updateClient } from './admin-clients';
import { AdminError } from './admin-errors';
import { listKeys, retireKey, rotateKey } from './admin-keys';
import { createInitialAccessToken, deleteInitialAccessToken } from './admin-registration-tokens';
import { parsePage } from './paging';

/** Options of the admin commands below, as parsed by the CLI (cli/main.ts). */
export interface AdminCliValues {
  id?: string | undefined;
  name?: string | undefined;
  grant?: string[] | undefined;
  'redirect-uri'?: string[] | undefined;
  'post-logout-redirect-uri'?: string[] | undefined;
  'backchannel-logout-uri'?: string | undefined;
  scope?: string[] | undefined;
  resource?: string[] | undefined;
  'exchange-client'?: string[] | undefined;
  account?: string | undefined;
  email?: string | undefined;
  kid?: string | undefined;
  limit?: string | undefined;
  cursor?: string | undefined;
  'expires-in'?: string | undefined;
  'max-uses'?: string | undefined;
}

export const ADMIN_CLI_USAGE = `  clients:get     --id ID
  clients:update  --id ID [--name N] [--grant G...] [--redirect-uri U...] [--post-logout-redirect-uri U...]
                  [--backchannel-logout-uri U]   (empty: removed)
                  [--scope S...] [--resource R...] [--exchange-client ID...]   (each given list replaces the registered one)
  clients:rotate-secret --id ID   (prints the new secret once; the old one stops working)
  clients:delete  --id ID         (revokes every token issued to the client)
  accounts:get    --account <id or email>
  accounts:find   [--email PREFIX] [--limit N] [--cursor C]   (one page, as GET /admin/accounts)
  keys:list
  keys:retire     --kid KID       (the previous key leaves /jwks at once)
  audit:list      [--limit N] [--cursor C]
  registration-tokens:create [--expires-in SECONDS] [--max-uses N]   (an initial access token for POST /register, printed once)
  registration-tokens:delete --id ID`;

export interface AdminCliContext {
  config: AuthConfig;
  deps: Pick<Deps, 'config' | 'redis' | 'clients' | 'refreshTokens' | 'accounts' | 'apiKeys' | 'adminAudit' | 'logoutDeliveries'>;
  keys: SigningKeys;
}

/** The operator running the CLI, for the audit log (it has the database credentials, not a token). */
export function cliActor(): NewAuditEntry['actor'] {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): still audited, as an unknown operator.
  }
  return { type: 'cli', id: user };
}

/** Appends a CLI change to `admin_audit` (no request id: not an HTTP request). */
export function auditCli(ctx: AdminCliContext, entry: Omit<NewAuditEntry, 'actor' | 'requestId'>): Promise<void> {
  return appendAudit(ctx.deps.adminAudit, { ...entry, actor: cliActor(), requestId: null });
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new Error(`${flag} is required`);
  return value;
}

/**
 * The admin commands that mirror the administration API, with the same functions and the same audit
 * log. Undefined when `command` is not one of them. An API error becomes the CLI's error message.
 */
export async function runAdminCommand(command: string, values: AdminCliValues, ctx: AdminCliContext): Promise<unknown> {
  try {
    return await run(command, values, ctx);
  } catch (err) {
    if (err instanceof AdminError) throw new Error(`${err.error}: ${err.description}`);
    throw err;
  }
}

async function run(command: string, values: AdminCliValues, ctx: AdminCliContext): Promise<unknown> {
  const { deps } = ctx;
  switch (command) {
    case 'clients:get':
      return getClient(deps, required(values.id, '--id'));
    case 'clients:update': {
      const id = required(values.id, '--id');
      const patch = {
        ...(values.name !== undefined ? { name: values.name } : {}),
        ...(values.grant ? { grant_types: values.grant } : {}),
        ...(values['redirect-uri'] ? { redirect_uris: values['redirect-uri'] } : {}),
        ...(values['post-logout-redirect-uri'] ? { post_logout_redirect_uris: values['post-logout-redirect-uri'] } : {}),
        // An empty value removes the registered URI.
        ...(values['backchannel-logout-uri'] !== undefined ? { backchannel_logout_uri: values['backchannel-logout-uri'] || null } : {}),
        ...(values.scope ? { scopes: values.scope.flatMap((s) => s.split(' ')).filter(Boolean) } : {}),
        ...(values.resource ? { resources: values.resource } : {}),
        ...(values['exchange-client'] ? { token_exchange: { allowed_clients: values['exchange-client'] } } : {}),
      };
      const { client, changes } = await updateClient(deps, id, patch);
      await auditCli(ctx, { action: 'client.update', target: { type: 'client', id }, changes });
      return client;
    }
    case 'clients:rotate-secret': {
      const id = required(values.id, '--id');
      const rotated = await rotateClientSecret(deps, id);
      await auditCli(ctx, { action: 'client.secret.rotate', target: { type: 'client', id }, changes: {} });
      return rotated;
    }
    case 'clients:delete': {
      const id = required(values.id, '--id');
      const result = await deleteClient(deps, id);
      await auditCli(ctx, { action: 'client.delete', target: { type: 'client', id }, changes: result });
      return { client_id: id, deleted: true, ...result };
    }
    case 'accounts:get': {
      const ref = required(values.account, '--account');
      if (!ref.includes('@')) return getAccount(deps, ref);
      const account = await findAccountByEmail(deps.accounts, ref);
      if (!account) throw new Error('no such account');
      return toPublicAccount(account);
    }
    case 'accounts:find':
      return listAccountsPage(deps, parsePage({ limit: values.limit, cursor: values.cursor }), values.email);
    case 'keys:list':
      return { items: await listKeys(ctx) };
    case 'keys:retire': {
      const kid = required(values.kid, '--kid');
      await retireKey(ctx, kid);
      await auditCli(ctx, { action: 'signing_key.retire', target: { type: 'signing_key', id: kid }, changes: {} });
      return { kid, retired: true };
    }
    case 'keys:rotate': {
      const rotated = await rotateKey(ctx);
      await auditCli(ctx, { action: 'signing_key.rotate', target: { type: 'signing_key', id: rotated.current }, changes: rotated });
      return rotated;
    }
    case 'registration-tokens:create': {
      const minted = await createInitialAccessToken(deps, {
        ...(values['expires-in'] !== undefined ? { expires_in: Number(values['expires-in']) } : {}),
        ...(values['max-uses'] !== undefined ? { max_uses: Number(values['max-uses']) } : {}),
      }, cliActor());
      await auditCli(ctx, { action: 'registration_token.create', target: { type: 'registration_token', id: minted.id }, changes: { expires_at: minted.expires_at, max_uses: minted.max_uses } });
      return minted;
    }
    case 'registration-tokens:delete': {
      const id = required(values.id, '--id');
      await deleteInitialAccessToken(deps, id);
      await auditCli(ctx, { action: 'registration_token.delete', target: { type: 'registration_token', id }, changes: {} });
      return { id, deleted: true };
    }
    case 'audit:list':
      return listAudit(deps.adminAudit, parsePage({ limit: values.limit, cursor: values.cursor }));
    default:
      return undefined;
  }
}

/** `accounts:update` of the CLI, through the same path as the API (changeAccount), audited. */
export async function updateAccountFromCli(ctx: AdminCliContext, id: string, patch: Parameters<typeof changeAccount>[2]) {
  const changed = await changeAccount(ctx.deps, id, patch);
  if (!changed) throw new Error('no such account');
  const { password: _password, ...changes } = patch;
  await auditCli(ctx, { action: 'account.update', target: { type: 'account', id }, changes });
  return toPublicAccount(changed);
}
