// Baseline for bench/auth: panva's oidc-provider configured like our server for the benchmark —
// client_credentials, client_secret_basic, JWT access tokens signed ES256, introspection enabled.
// Storage: Redis (./oidc-provider-redis-adapter.mjs) for tokens and grants, as our server keeps its
// short-lived state in Redis; clients come from configuration, as ours come from an in-process cache.
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';
import { redisAdapter } from './oidc-provider-redis-adapter.mjs';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const provider = new Provider(issuer, {
  adapter: redisAdapter(process.env.REDIS_URL),
  clients: [
    {
      client_id: 'bench',
      client_secret: process.env.CLIENT_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
      scope: 'speech:read',
    },
  ],
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }] },
  scopes: ['speech:read'],
  ttl: { ClientCredentials: 3600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => issuer,
      useGrantedResource: () => true,
      // JWT (ES256) tokens for issuance, like ours; oidc-provider refuses to introspect JWT tokens, so the
      // introspection run uses an opaque token (a lookup in Redis) requested for `urn:bench:opaque`.
      getResourceServerInfo: (_ctx, resource) =>
        resource === 'urn:bench:opaque'
          ? { scope: 'speech:read', accessTokenFormat: 'opaque', accessTokenTTL: 3600 }
          : { scope: 'speech:read', accessTokenFormat: 'jwt', accessTokenTTL: 3600, jwt: { sign: { alg: 'ES256' } } },
    },
  },
});
provider.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
