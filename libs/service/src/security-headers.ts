import type { Server } from 'node:http';

/**
 * Headers every answer of every app carries, set on the HTTP server's `request` event ahead of any
 * listener, so routes that bypass express (auth's fast lane), errors, 404s and health routes all
 * get them. `X-Content-Type-Options: nosniff` (Fetch standard, "X-Content-Type-Options header"):
 * a browser takes the declared Content-Type and never sniffs a JSON body into HTML or script.
 */
export function answerWithSecurityHeaders(server: Server): void {
  server.prependListener('request', (_req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
  });
}
