import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Identity } from '@platform/identity';
import { createLogger } from '@platform/logger';
import type { SpeechStore } from '@platform/speech-store';
import type { AnalysisQueue } from '../src/speech/voices/analysis-queue';
import { apiKeysRoutes } from '../src/speech/api-keys';
import type { AuthApiKeys } from '../src/speech/api-keys';
import { voicesRoutes } from '../src/speech/voices';
import { createCloneAdmission } from '../src/speech/voices/clone-admission';

/**
 * The same body error gets the same speech error on every speech route (docs/speech.md, "Every
 * `detail.status` and its HTTP status"): a JSON body over the route's limit is 413
 * `text_too_long`, a body that is not JSON 400 `bad_request`. The routes' stores are never reached.
 */
const logger = createLogger('speech-body-errors-test', 'silent');
const owner: Identity = { sub: 'acct_1', roles: ['USER'], scope: 'speech:read speech:write', method: 'bearer_jwt' };

let server: http.Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use((req, _res, next) => {
    (req as express.Request & { identity?: Identity }).identity = owner;
    next();
  });
  const unreachable = {} as SpeechStore;
  app.use(
    '/v1',
    voicesRoutes({
      store: unreachable,
      logger,
      publicUrl: 'http://platform.test',
      analysis: {} as AnalysisQueue,
      admission: createCloneAdmission(1),
    }),
  );
  app.use('/v1', apiKeysRoutes({ keys: {} as AuthApiKeys, forgetKey: () => undefined, logger }));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = async (path: string, body: string) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: (await res.json()) as unknown };
};

describe('body errors on the speech routes', () => {
  it.each([
    ['voice settings (8 KiB)', '/voices/v1/settings/edit', 9 * 1024],
    ['API keys (16 KiB)', '/api-keys', 17 * 1024],
  ])('%s: a body over the limit is 413 text_too_long', async (_name, path, size) => {
    const answer = await post(path, JSON.stringify({ name: 'x'.repeat(size) }));
    expect(answer).toEqual({
      status: 413,
      body: { detail: { status: 'text_too_long', message: 'request body is too large' } },
    });
  });

  it.each([
    ['voice settings', '/voices/v1/settings/edit'],
    ['API keys', '/api-keys'],
  ])('%s: a body that is not JSON is 400 bad_request', async (_name, path) => {
    const answer = await post(path, '{"stability": ');
    expect(answer).toEqual({
      status: 400,
      body: { detail: { status: 'bad_request', message: 'request body must be valid JSON' } },
    });
  });
});
