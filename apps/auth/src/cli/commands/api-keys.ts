import { createApiKey, listApiKeys, revokeApiKey, toPublicApiKey } from '../../api-keys/api-keys';
import { cliCommand } from '../cli-command';
import { accountFlag, accountOf } from './accounts';

export const createApiKeyCommand = cliCommand({
  name: 'api-keys:create',
  summary: 'prints the key once',
  audit: 'api_key.create',
  flags: { account: { ...accountFlag, required: true }, name: { type: 'string', value: 'N' } },
  async run(values, ctx) {
    const account = await accountOf(ctx, values.account);
    if (!account) throw new Error('--account must name an existing account (id or email)');
    const { key, doc } = await createApiKey(ctx.deps.apiKeys, account._id, values.name ?? 'default');
    const { id, createdAt: _createdAt, revoked: _revoked, prefix: _prefix, ...changes } = toPublicApiKey(doc);
    return { output: { ...toPublicApiKey(doc), key }, audit: { target: { type: 'api_key', id }, changes } };
  },
});

export const listApiKeysCommand = cliCommand({
  name: 'api-keys:list',
  summary: 'the keys of an account, or of all: the prefix, never the key',
  flags: { account: accountFlag },
  async run(values, ctx) {
    const account = values.account ? await accountOf(ctx, values.account) : undefined;
    if (values.account && !account) throw new Error('no such account');
    return { output: (await listApiKeys(ctx.deps.apiKeys, account?._id)).map(toPublicApiKey) };
  },
});

export const revokeApiKeyCommand = cliCommand({
  name: 'api-keys:revoke',
  summary: 'the key stops working at once, at every gateway',
  audit: 'api_key.revoke',
  flags: { id: { type: 'string', value: 'KEY_ID', required: true } },
  async run(values, { deps }) {
    if (!(await revokeApiKey(deps.apiKeys, deps.redis, values.id))) throw new Error('no such active API key');
    return { output: { revoked: values.id }, audit: { target: { type: 'api_key', id: values.id }, changes: {} } };
  },
});
