import fs from 'node:fs';
import { deleteClient, getClient, rotateClientSecret, updateClient } from '../../admin/admin-clients';
import { backchannelRegistrationProblem } from '../../backchannel-logout/client-metadata';
import type { ClientRegistration } from '@platform/contracts';
import { createClient, listClients, toPublicClient } from '../../clients/clients';
import { cliCommand } from '../cli-command';

/** `--id` of the commands that act on one registered client. */
const clientId = { id: { type: 'string', value: 'ID', required: true } } as const;

/** The registration lists `clients:create` sets and `clients:update` replaces, declared once. */
const clientLists = {
  grant: { type: 'string', value: 'G', multiple: true },
  'redirect-uri': { type: 'string', value: 'U', multiple: true },
  scope: { type: 'string', value: 'S', multiple: true },
  'post-logout-redirect-uri': {
    type: 'string',
    value: 'U',
    multiple: true,
    note: 'OpenID Connect RP-Initiated Logout',
  },
  'backchannel-logout-uri': { type: 'string', value: 'U' },
  resource: { type: 'string', value: 'R', multiple: true },
  'exchange-client': {
    type: 'string',
    value: 'ID',
    multiple: true,
    note: 'token exchange: other clients whose tokens it may exchange',
  },
} as const;

/** `--scope` is repeatable and each value may hold several scopes separated by spaces (as the `scope` parameter). */
const scopesOf = (values: string[]) => values.flatMap((s) => s.split(' ')).filter(Boolean);

export const createClientCommand = cliCommand({
  name: 'clients:create',
  summary: 'registers a client; prints its client_secret once',
  audit: 'client.create',
  flags: {
    name: { type: 'string', value: 'N', required: true },
    type: { type: 'string', value: 'confidential|public', required: true },
    ...clientLists,
    grant: { ...clientLists.grant, required: true },
    'backchannel-logout-session-required': { type: 'boolean', note: 'Back-Channel Logout' },
    'jwks-file': { type: 'string', value: 'F' },
    'client-id': { type: 'string', value: 'ID' },
    'no-secret': { type: 'boolean' },
    'security-profile': {
      type: 'string',
      value: 'fapi2',
      note: 'FAPI 2.0 Security Profile; with --jwks-file and --no-secret',
    },
    'introspection-signed-response-alg': { type: 'string', value: 'ES256', note: 'RFC 9701 JWT introspection answers' },
  },
  async run(values, { config, deps }) {
    const input: ClientRegistration = {
      name: values.name,
      type: values.type as ClientRegistration['type'],
      grant_types: values.grant as ClientRegistration['grant_types'],
      redirect_uris: values['redirect-uri'] ?? [],
      post_logout_redirect_uris: values['post-logout-redirect-uri'] ?? [],
      scopes: scopesOf(values.scope ?? []),
      resources: values.resource ?? [],
      secret: !values['no-secret'],
      ...(values['client-id'] ? { client_id: values['client-id'] } : {}),
      ...(values['exchange-client'] ? { token_exchange: { allowed_clients: values['exchange-client'] } } : {}),
      ...(values['jwks-file']
        ? { jwks: JSON.parse(fs.readFileSync(values['jwks-file'], 'utf8')) as ClientRegistration['jwks'] }
        : {}),
      ...(values['security-profile']
        ? { security_profile: values['security-profile'] as ClientRegistration['security_profile'] }
        : {}),
      ...(values['introspection-signed-response-alg']
        ? {
            introspection_signed_response_alg: values[
              'introspection-signed-response-alg'
            ] as ClientRegistration['introspection_signed_response_alg'],
          }
        : {}),
      ...(values['backchannel-logout-uri'] ? { backchannel_logout_uri: values['backchannel-logout-uri'] } : {}),
      ...(values['backchannel-logout-session-required'] ? { backchannel_logout_session_required: true } : {}),
    };
    const logoutProblem = backchannelRegistrationProblem(input, config.BACKCHANNEL_LOGOUT_ALLOW_PRIVATE);
    if (logoutProblem) throw new Error(logoutProblem);
    const { client, secret } = await createClient(deps.clients, config.INTERNAL_SECRET, input, config.PUBLIC_URL);
    const { client_id: id, created_at: _created, ...fields } = toPublicClient(client);
    return {
      output: { ...toPublicClient(client), ...(secret ? { client_secret: secret } : {}) },
      audit: { target: { type: 'client', id }, changes: fields },
    };
  },
});

export const listClientsCommand = cliCommand({
  name: 'clients:list',
  summary: 'every registered client, without secrets',
  flags: {},
  async run(_values, { deps }) {
    return { output: (await listClients(deps.clients)).map(toPublicClient) };
  },
});

export const getClientCommand = cliCommand({
  name: 'clients:get',
  summary: 'one registered client, as GET /admin/clients/{id}',
  flags: clientId,
  async run(values, { deps }) {
    return { output: await getClient(deps, values.id) };
  },
});

export const updateClientCommand = cliCommand({
  name: 'clients:update',
  summary: 'each given list replaces the registered one; an empty --backchannel-logout-uri removes it',
  audit: 'client.update',
  flags: { ...clientId, name: { type: 'string', value: 'N' }, ...clientLists },
  async run(values, { deps }) {
    const patch = {
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.grant ? { grant_types: values.grant } : {}),
      ...(values['redirect-uri'] ? { redirect_uris: values['redirect-uri'] } : {}),
      ...(values['post-logout-redirect-uri'] ? { post_logout_redirect_uris: values['post-logout-redirect-uri'] } : {}),
      // An empty value removes the registered URI.
      ...(values['backchannel-logout-uri'] !== undefined
        ? { backchannel_logout_uri: values['backchannel-logout-uri'] || null }
        : {}),
      ...(values.scope ? { scopes: scopesOf(values.scope) } : {}),
      ...(values.resource ? { resources: values.resource } : {}),
      ...(values['exchange-client'] ? { token_exchange: { allowed_clients: values['exchange-client'] } } : {}),
    };
    const { client, changes } = await updateClient(deps, values.id, patch);
    return { output: client, audit: { target: { type: 'client', id: values.id }, changes } };
  },
});

export const rotateClientSecretCommand = cliCommand({
  name: 'clients:rotate-secret',
  summary: 'prints the new secret once; the old one stops working',
  audit: 'client.secret.rotate',
  flags: clientId,
  async run(values, { deps }) {
    return {
      output: await rotateClientSecret(deps, values.id),
      audit: { target: { type: 'client', id: values.id }, changes: {} },
    };
  },
});

export const deleteClientCommand = cliCommand({
  name: 'clients:delete',
  summary: 'revokes every token issued to the client',
  audit: 'client.delete',
  flags: clientId,
  async run(values, { deps }) {
    const result = await deleteClient(deps, values.id);
    return {
      output: { client_id: values.id, deleted: true, ...result },
      audit: { target: { type: 'client', id: values.id }, changes: result },
    };
  },
});
