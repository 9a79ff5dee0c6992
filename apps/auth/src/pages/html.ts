import type { Response } from 'express';
import { personMeaning } from '@platform/oauth-resource';
import { PAGE_CSS_PATH } from './page-style';

/** Server-rendered pages: plain HTML forms that work without JavaScript. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/**
 * The layout every page shares (the playground's look, page-style.ts): a header naming the platform,
 * the page's title and body in `main`; each page is its body's few lines of HTML.
 */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${PAGE_CSS_PATH}">
</head><body><header class="bar">Sign-in</header>
<main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/** The scopes a consent page asks for, as a list: what each lets the client do, then its id (oauth/scopes.ts). */
export function scopeList(scopes: readonly string[]): string {
  if (scopes.length === 0) return '<ul class="scopes"><li>Nothing beyond signing you in</li></ul>';
  const items = scopes.map((s) => {
    const meaning = personMeaning(s);
    // What it allows first, in words; the scope's id below it, for those who know them.
    return `<li>${meaning ? escapeHtml(capitalised(meaning)) : ''}<code>${escapeHtml(s)}</code></li>`;
  });
  return `<ul class="scopes">${items.join('')}</ul>`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

/**
 * Headers of every HTML page: never cached, never framed (clickjacking: `frame-ancestors 'none'` and
 * the older `X-Frame-Options`), no scripts or other loads (`default-src 'none'`; the stylesheet of
 * page-style.ts, from this server, is the page's only resource), forms post only to this server. `formTargets` adds the origins a form's answer
 * may redirect to (the consent form redirects to the client's redirect_uri; browsers apply form-action
 * to that redirect).
 */
function pageHeaders(res: Response, formTargets: string[] = []): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; img-src data:; form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
  );
}

/** Answers an HTML page with `pageHeaders`. */
export function sendPage(res: Response, status: number, title: string, body: string, formTargets: string[] = []): void {
  pageHeaders(res, formTargets);
  res.status(status).type('html').send(page(title, body));
}
