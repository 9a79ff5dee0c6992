import { Router, type Request, type Response } from 'express';
import { checkCredentials } from '../accounts/accounts';
import type { Deps } from '../deps';
import { formBody, paramsOf } from '../oauth/params';
import { escapeHtml, hidden, page } from './html';
import { csrfToken, csrfValid, safeReturnTo, startSession } from './session';

function loginPage(deps: Deps, req: Request, res: Response, returnTo: string, error?: string): void {
  const csrf = csrfToken(deps, req, res);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
  res.type('html').send(
    page(
      'Sign in',
      `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/login">
${hidden('csrf', csrf)}${hidden('return_to', returnTo)}
<label>Email <input name="email" type="email" autocomplete="username" required maxlength="254"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required maxlength="256"></label>
<button type="submit">Sign in</button>
</form>`,
    ),
  );
}

/** `GET/POST /login`: the sign-in page used by /authorize and the device verification page. */
export function loginRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/login', (req, res) => loginPage(deps, req, res, safeReturnTo(req.query.return_to)));
  router.post('/login', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    const returnTo = safeReturnTo(params.return_to);
    if (!csrfValid(req, params.csrf)) {
      res.status(403);
      return loginPage(deps, req, res, returnTo, 'Your form expired. Please try again.');
    }
    const email = typeof params.email === 'string' ? params.email : '';
    const password = typeof params.password === 'string' ? params.password : '';
    const account = await checkCredentials(deps.accounts, email, password);
    if (!account) {
      res.status(401);
      return loginPage(deps, req, res, returnTo, 'Email or password is wrong.');
    }
    await startSession(deps, res, account._id);
    res.redirect(303, returnTo);
  });
  return router;
}
