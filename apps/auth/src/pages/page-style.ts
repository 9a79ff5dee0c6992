import { createHash } from 'node:crypto';
import { Router } from 'express';

/**
 * The one stylesheet of the sign-in, consent, device and sign-out pages: the playground's look (its
 * design tokens, copied from apps/playground/src/styles.css `:root`, which a unit test keeps equal),
 * system fonts only, nothing loaded from elsewhere. A file of auth's own, so the pages stand alone
 * when auth is reached directly; a TypeScript string, so the build ships it without a copy step.
 */
export const PAGE_CSS = `:root {
  --bg: #ffffff;
  --fg: #1b1d21;
  --muted: #545b66;
  --line: #d5d9e0;
  --accent: #1d4ed8;
  --accent-fg: #ffffff;
  --panel: #f5f7fa;
  --error: #b42318;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  line-height: 1.5;
  color: var(--fg);
  background: var(--bg);
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15171b;
    --fg: #e8eaee;
    --muted: #a9b0bc;
    --line: #3a3f48;
    --accent: #8ab4ff;
    --accent-fg: #0b1220;
    --panel: #1e2127;
    --error: #ff8a80;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; }
.bar { padding: .75rem 1rem; border-bottom: 1px solid var(--line); font-weight: 700; font-size: 1.1rem; }
main { max-width: 30rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: 1rem 0; }
.muted { color: var(--muted); }
.error { color: var(--error); padding: .5rem .75rem; border-left: 4px solid var(--error); background: var(--panel); }
form { display: flex; flex-direction: column; gap: .35rem; }
label { font-weight: 600; display: flex; flex-direction: column; gap: .25rem; margin-bottom: .5rem; }
input, button { font: inherit; color: inherit; }
input { width: 100%; padding: .5rem; border: 1px solid var(--line); border-radius: .4rem; background: var(--bg); }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .5rem; }
button { min-height: 2.75rem; padding: .4rem 1rem; border: 1px solid var(--line); border-radius: .4rem; background: var(--panel); cursor: pointer; }
button.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.scopes { list-style: none; padding: 0; margin: 0 0 1rem; display: flex; flex-direction: column; gap: .5rem; }
.scopes > li { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem .75rem; background: var(--panel); overflow-wrap: anywhere; }
.scopes code { display: block; font-size: .85rem; color: var(--muted); }
`;

/**
 * Where the pages find it: under `/login`, a path the gateway already forwards to auth, so the pages
 * look the same behind the gateway and directly. The content hash in the query makes it cacheable for good.
 */
export const PAGE_CSS_PATH = `/login/pages.css?v=${createHash('sha256').update(PAGE_CSS).digest('hex').slice(0, 16)}`;

export function pageStyleRoutes(): Router {
  const router = Router();
  router.get('/login/pages.css', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('css').send(PAGE_CSS);
  });
  return router;
}
