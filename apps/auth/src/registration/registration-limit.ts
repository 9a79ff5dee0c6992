import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Deps } from '../deps';
import { clientAddress } from '../http/client-address';
import { OAuthError } from '../oauth/oauth-error';

/**
 * REGISTRATION_RATE_LIMIT requests per client address per minute to `/register` and the client
 * configuration endpoints, across replicas: rate-limiter-flexible in Redis, the limiter the gateway's
 * plan limits use, with the same in-memory insurance should Redis fail. Registration writes to the
 * database and, when open, needs no credential: this bounds what one address can make.
 */
export function registrationLimit(deps: Pick<Deps, 'config' | 'redis'>): RequestHandler {
  const points = deps.config.REGISTRATION_RATE_LIMIT;
  const limiter = new RateLimiterRedis({
    storeClient: deps.redis,
    // Namespaced by the auth database so deployments (and test runs) sharing a Redis do not share counters.
    keyPrefix: `auth:registration-rate:${deps.config.MONGO_DB}`,
    points,
    duration: 60,
    insuranceLimiter: new RateLimiterMemory({ points, duration: 60 }),
  });
  return (req, _res, next) => {
    clientAddress(req, deps.config.INTERNAL_SECRET)
      .then((address) => limiter.consume(address, 1))
      .then(
        () => next(),
        (err: unknown) => {
          if (!(err instanceof RateLimiterRes)) return next(err);
          const retryAfter = String(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
          next(
            new OAuthError(
              'temporarily_unavailable',
              `too many registration requests from this address; retry in ${retryAfter} s`,
              429,
              { 'Retry-After': retryAfter },
            ),
          );
        },
      );
  };
}
