import fs from 'node:fs';
import path from 'node:path';
import express, { type Response, type Router } from 'express';
import type { Logger } from '@platform/logger';

interface PlaygroundOptions {
  /** The built page (apps/playground/dist): index.html and assets/. */
  dir: string;
  publicUrl: string;
  clientId: string;
  logger: Logger;
}

/** Where `npm run build` writes the page, seen from apps/gateway/dist/playground/. */
export const DEFAULT_PLAYGROUND_DIR = path.resolve(__dirname, '../../../playground/dist');

/**
 * The page may talk only to this origin (its API calls and the graphql-ws socket) and run only its own
 * script: an injected script could read the signed-in person's tokens. Audio comes from blob: URLs
 * (Media Source Extensions and downloaded history items). No referrer: the sign-in callback's URL
 * holds the authorization code until the page has redeemed it.
 */
export function playgroundHeaders(publicUrl: string): Record<string, string> {
  const origin = new URL(publicUrl);
  const socketOrigin = `${origin.protocol === 'https:' ? 'wss' : 'ws'}://${origin.host}`;
  return {
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "media-src 'self' blob:",
      `connect-src 'self' ${socketOrigin}`,
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'permissions-policy': 'microphone=(self), camera=(), geolocation=()',
    'cross-origin-opener-policy': 'same-origin',
  };
}

/**
 * The playground at `/` (its page), `/assets/*` (content-hashed, cached for good) and
 * `/playground/config.json` (the issuer and client id the page signs in with). Without built assets the
 * gateway still serves the APIs and says at boot how to build the page.
 */
export function playgroundRoutes(options: PlaygroundOptions): Router | null {
  const index = path.join(options.dir, 'index.html');
  if (!fs.existsSync(index)) {
    options.logger.warn(
      { dir: options.dir },
      'playground assets not found (run `npm run build`); serving the APIs without the page',
    );
    return null;
  }
  const headers = playgroundHeaders(options.publicUrl);
  const setHeaders = (res: Response) => res.set(headers);
  const router = express.Router();
  router.get('/', (_req, res) => {
    setHeaders(res);
    res.set('cache-control', 'no-cache').sendFile(index);
  });
  router.get('/playground/config.json', (_req, res) => {
    res
      .set('cache-control', 'no-cache')
      .json({ issuer: options.publicUrl.replace(/\/+$/, ''), client_id: options.clientId });
  });
  router.use(
    '/assets',
    express.static(path.join(options.dir, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '365d',
      fallthrough: true,
      setHeaders,
    }),
  );
  return router;
}
