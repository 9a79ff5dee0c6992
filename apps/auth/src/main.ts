import './tracing';
import { createLogger, logProcessWarnings, requestLogger } from '@platform/logger';
import { exitOnBootFailure, listenOn, runService } from '@platform/service';
import { connectMongo, connectRedis, storeReadiness } from '@platform/stores';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mountAuth } from './app';
import { fastLane } from './http/fast-lane';
import { introspectEndpoint } from './oauth/introspect-route';
import { tokenEndpoint } from './oauth/token-route';
import { loadAuthConfig } from './config';
import { limitPasswordHashing } from './crypto/secrets';
import { signingKeys } from './keys/signing-keys';
import { authModels } from './auth-models';
import { startLogoutDelivery } from './backchannel-logout/logout-outbox';
import {
  registerApiReferenceClient,
  registerPlaygroundClient,
  registerQueueDashboardClient,
} from './clients/playground-client';
import { listenForClientChanges } from './clients/client-changes';
import { setClientCacheLifetime } from './clients/clients';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const logger = createLogger('auth', config.LOG_LEVEL);
  logProcessWarnings(logger);
  limitPasswordHashing(config.PASSWORD_HASH_CONCURRENCY, config.PASSWORD_HASH_QUEUE);
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  // Auto-pipelining: the revocation lookups of concurrent /introspect requests (and any other commands
  // issued in the same tick) leave in one write instead of one write each; order and replies are unchanged.
  const redis = await connectRedis(config.REDIS_URL, { enableAutoPipelining: true });
  const models = await authModels(mongo);
  // Registrations changed on another replica (admin API, CLI) are dropped from this one's client cache.
  setClientCacheLifetime(config.CLIENT_CACHE_SECONDS * 1000);
  const clientChanges = await connectRedis(config.REDIS_URL);
  await listenForClientChanges(clientChanges, logger);
  const keys = signingKeys(mongo, config.INTERNAL_SECRET, {
    rotateAfterSeconds: config.KEY_ROTATION_SECONDS,
    cacheSeconds: config.KEY_CACHE_SECONDS,
    activationDelaySeconds: config.KEY_ACTIVATION_DELAY,
  });
  await keys.current(); // creates the first key at first boot, before the app says it is ready
  if (config.PLAYGROUND_CLIENT_ID)
    await registerPlaygroundClient(models.clients, config.PLAYGROUND_CLIENT_ID, config.PUBLIC_URL);
  if (config.QUEUE_DASHBOARD_CLIENT_ID)
    await registerQueueDashboardClient(models.clients, config.QUEUE_DASHBOARD_CLIENT_ID, config.PUBLIC_URL);
  if (config.API_REFERENCE_CLIENT_ID)
    await registerApiReferenceClient(models.clients, config.API_REFERENCE_CLIENT_ID, config.PUBLIC_URL);
  const deps = { config, logger, redis, keys, ...models };
  // Back-channel logouts queued before this boot (or by another replica, or the admin CLI) are delivered from here too.
  const logoutDelivery = startLogoutDelivery(deps);
  await runService({
    name: 'auth',
    ...listenOn(config),
    logger,
    checks: storeReadiness(mongo, redis),
    mount(app) {
      // Token responses are no-store: an ETag (a hash of every body) buys nothing.
      app.set('etag', false);
      app.use(requestLogger(logger));
      mountAuth(app, deps);
    },
    onServer(server) {
      // POST /token and POST /introspect take the fast lane; every other request goes to express.
      const lane = fastLane(logger, { '/token': tokenEndpoint(deps), '/introspect': introspectEndpoint(deps) });
      const [app] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
      if (!app) throw new Error('the HTTP server has no request listener');
      server.removeAllListeners('request');
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        if (!lane(req, res)) app(req, res);
      });
    },
    async close() {
      await logoutDelivery.stop();
      await Promise.allSettled([mongo.close(), redis.quit(), clientChanges.quit()]);
    },
  });
}

main().catch(exitOnBootFailure('auth'));
