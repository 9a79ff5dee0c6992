import type { Redis } from 'ioredis';
import type { Agent } from 'undici';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { createApiKeyResolver, type ApiKeyResolver } from './api-key-cache';
import { authApiKeyLookup } from './api-key-lookup';
import { listenForApiKeyRevocations } from './api-key-revocations';
import { apiKeyIdentity, type AuthenticateDeps } from './authenticate';
import type { AuthenticationConfig } from './authentication-config';
import { oauthResourceVerifier } from './oauth-resource-verifier';
import {
  createRevocationWatch,
  listenForTokenRevocations,
  redisRevocationCheck,
  type RevocationWatch,
} from './token-revocations';

export interface EdgeAuthentication {
  /** What every route and WebSocket authenticates with (authenticate.ts). */
  authDeps: AuthenticateDeps;
  apiKeys: ApiKeyResolver;
  /** An API key as the caller it names; null when auth does not know it. */
  authenticateApiKey(key: string): Promise<Identity | null>;
  /** The graphql-ws connections' tokens, closed when auth revokes one (docs/gateway.md). */
  tokenRevocations: RevocationWatch;
  stop(): void;
}

/** A call to auth the gateway makes itself (key lookups, JWKS, sign-in) is bounded tighter than a forwarded one. */
export const ownCallTimeout = (config: Pick<AuthenticationConfig, 'UPSTREAM_TIMEOUT_MS'>): number =>
  Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000);

/**
 * The edge's authentication (docs/gateway.md "Authentication"): API keys resolved through auth and
 * cached until auth announces their revocation, access tokens verified as a resource server
 * (`libs/oauth-resource`), and the revocation notices both listen to on their own Redis connection.
 */
export async function createEdgeAuthentication(
  config: AuthenticationConfig,
  deps: { redis: Redis; subscriber: Redis; authAgent: Agent; logger: Logger },
): Promise<EdgeAuthentication> {
  const { redis, subscriber, logger } = deps;
  const timeoutMs = ownCallTimeout(config);
  const apiKeys = createApiKeyResolver(
    authApiKeyLookup(config.AUTH_URL, config.INTERNAL_SECRET, deps.authAgent, timeoutMs),
    { ttlMs: config.API_KEY_CACHE_TTL_MS, unknownTtlMs: config.API_KEY_UNKNOWN_CACHE_MS },
  );
  await listenForApiKeyRevocations(subscriber, apiKeys, logger);
  const isRevoked = redisRevocationCheck(redis);
  const tokenRevocations = createRevocationWatch(isRevoked);
  const sweeps = await listenForTokenRevocations(subscriber, tokenRevocations, {
    intervalMs: config.WS_REVOCATION_SWEEP_MS,
    logger,
  });
  return {
    authDeps: {
      apiKeys,
      isTokenRevoked: async (jti) => (await isRevoked([jti]))[0] === true,
      verifyAccessToken: oauthResourceVerifier({
        publicUrl: config.PUBLIC_URL,
        authUrl: config.AUTH_URL,
        redis,
        jwksTimeoutMs: timeoutMs,
      }),
    },
    apiKeys,
    async authenticateApiKey(key) {
      const record = await apiKeys.resolve(key);
      return record ? apiKeyIdentity(record) : null;
    },
    tokenRevocations,
    stop: () => sweeps.stop(),
  };
}
