import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '@platform/logger';
import { playgroundHeaders } from '../playground/playground-routes';

/**
 * The playground's policy (only this origin's scripts and connections, no framing, no referrer) with two
 * additions the bundled renderers need: GraphiQL's fonts are data: URIs inside its stylesheet, and
 * Swagger UI sets style attributes. Inline styles cannot run code; scripts stay 'self' only.
 */
function referenceHeaders(publicUrl: string): Record<string, string> {
  const headers = playgroundHeaders(publicUrl);
  const csp = headers['content-security-policy']!.replace(
    "style-src 'self'",
    "style-src 'self' 'unsafe-inline'",
  ).replace("img-src 'self' data:", "img-src 'self' data:; font-src 'self' data:");
  return {
    ...headers,
    'content-security-policy': csp,
    'permissions-policy': 'microphone=(), camera=(), geolocation=()',
  };
}

/**
 * The reference pages, built by `npm run build` into the playground's dist/reference: `/docs` (the
 * OpenAPI documents in Swagger UI, with its OAuth2 sign-in as API_REFERENCE_CLIENT_ID), `/docs/asyncapi` (the AsyncAPI document) and the GraphQL explorer
 * (GraphiQL) that a browser gets at `/graphql`. Their Content-Security-Policy (referenceHeaders) admits
 * only this origin's scripts, styles and connections, so the pages work with no internet and a token
 * pasted into the explorer cannot leave for another origin.
 */
export function referencePages(dir: string, publicUrl: string, clientId: string, logger: Logger): Router | null {
  const page = (name: string) => path.join(dir, name);
  if (!fs.existsSync(page('docs.html'))) {
    logger.warn(
      { dir },
      'reference pages not found (run `npm run build`); serving the documents without /docs and the GraphQL explorer',
    );
    return null;
  }
  const headers = referenceHeaders(publicUrl);
  const send =
    (name: string, more: Record<string, string> = {}) =>
    (_req: Request, res: Response) => {
      res.set(headers).set(more).set('cache-control', 'no-cache').sendFile(page(name));
    };
  // Swagger UI's sign-in pop-up goes through auth's pages (no opener policy) and back to the redirect
  // page, which hands the code to `window.opener`: the page keeps its opener only if /docs lets its
  // pop-ups keep theirs and the redirect page does not isolate itself (same-origin would sever it).
  const popupOpener = { 'cross-origin-opener-policy': 'same-origin-allow-popups' };
  const inPopup = { 'cross-origin-opener-policy': 'unsafe-none' };
  const router = express.Router();
  router.get('/docs', send('docs.html', popupOpener));
  router.get('/docs/asyncapi', send('asyncapi.html'));
  // Swagger UI's "Authorize" (PKCE): the client it signs in as, and swagger-ui-dist's page the pop-up comes
  // back to, which hands the code to the opener (the client's redirect URI, auth's API_REFERENCE_REDIRECT_PATH).
  router.get('/docs/config.json', (_req, res) => {
    res.set('cache-control', 'no-cache').json({ client_id: clientId || null });
  });
  router.get('/docs/oauth2-redirect.html', send('oauth2-redirect.html', inPopup));
  router.get('/docs/oauth2-redirect.js', send('oauth2-redirect.js', inPopup));
  router.use(
    '/docs/assets',
    express.static(path.join(dir, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '365d',
      fallthrough: true,
      setHeaders: (res) => res.set(headers),
    }),
  );
  // A browser opening /graphql (no query, HTML preferred); GraphQL clients never prefer text/html.
  router.get('/graphql', (req, res, next) => {
    if (
      req.query.query !== undefined ||
      req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) !== 'text/html'
    ) {
      next();
      return;
    }
    res.vary('Accept');
    send('explorer.html')(req, res);
  });
  return router;
}
