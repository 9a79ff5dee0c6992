import type { Response } from 'express';
import { scopeMeaning } from '../oauth/scopes';

/** Server-rendered pages: plain HTML forms that work without JavaScript. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.75rem 0}input{width:100%;padding:.4rem}button{margin:.5rem .5rem 0 0;padding:.5rem 1rem}.error{color:#b00020}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** The scopes a consent page asks for, each with what it lets the client do. */
export function scopeItems(scopes: readonly string[]): string {
  if (scopes.length === 0) return '<li>(no scopes)</li>';
  return scopes
    .map((s) => {
      const meaning = scopeMeaning(s);
      return `<li><code>${escapeHtml(s)}</code>${meaning ? `: ${escapeHtml(meaning)}` : ''}</li>`;
    })
    .join('');
}

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

/**
 * Headers of every HTML page: never cached, never framed (clickjacking: `frame-ancestors 'none'` and
 * the older `X-Frame-Options`), no scripts or other loads (`default-src 'none'`; the inline style is the
 * page's only resource), forms post only to this server. `formTargets` adds the origins a form's answer
 * may redirect to (the consent form redirects to the client's redirect_uri; browsers apply form-action
 * to that redirect).
 */
function pageHeaders(res: Response, formTargets: string[] = []): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
  );
}

/** Answers an HTML page with `pageHeaders`. */
export function sendPage(res: Response, status: number, title: string, body: string, formTargets: string[] = []): void {
  pageHeaders(res, formTargets);
  res.status(status).type('html').send(page(title, body));
}
