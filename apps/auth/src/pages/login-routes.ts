import { Router, type Request, type Response } from 'express';
import { signIn } from '../accounts/sign-in';
import type { Deps } from '../deps';
import { formBody, paramsOf } from '../oauth/params';
import { escapeHtml, hidden, sendPage } from './html';
import { csrfToken, csrfValid, safeReturnTo, startSession } from './session';
import { clientAddress } from '../http/client-address';

/** The sign-in form; `email` prefills its email (the `login_hint` of the request, or what was typed). */
function loginPage(
  deps: Deps,
  req: Request,
  res: Response,
  status: number,
  returnTo: string,
  error?: string,
  email = '',
): void {
  const csrf = csrfToken(deps, req, res);
  sendPage(
    res,
    status,
    'Sign in',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/login">
${hidden('csrf', csrf)}${hidden('return_to', returnTo)}
<label>Email <input name="email" type="email" autocomplete="username" required maxlength="254" value="${escapeHtml(email)}"${email ? '' : ' autofocus'}></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required maxlength="256"${email ? ' autofocus' : ''}></label>
<button type="submit" class="primary">Sign in</button>
</form>`,
  );
}

/** `GET/POST /login`: the sign-in page used by /authorize and the device verification page. */
export function loginRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/login', (req, res) => {
    const hint = typeof req.query.login_hint === 'string' ? req.query.login_hint.slice(0, 254) : '';
    loginPage(deps, req, res, 200, safeReturnTo(req.query.return_to), undefined, hint);
  });
  router.post('/login', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    const returnTo = safeReturnTo(params.return_to);
    const email = typeof params.email === 'string' ? params.email : '';
    if (!csrfValid(req, params.csrf))
      return loginPage(deps, req, res, 403, returnTo, 'Your form expired. Please try again.', email.slice(0, 254));
    const password = typeof params.password === 'string' ? params.password : '';
    const result = await signIn(deps, {
      email,
      password,
      address: await clientAddress(req, deps.config.INTERNAL_SECRET),
    });
    if (!result.ok && result.retryAfterSeconds !== undefined) {
      // The same answer whether or not the account exists: the limit is kept per identifier.
      res.setHeader('Retry-After', String(result.retryAfterSeconds));
      return loginPage(
        deps,
        req,
        res,
        429,
        returnTo,
        `Too many sign-in attempts. Try again in ${result.retryAfterSeconds} seconds.`,
      );
    }
    if (!result.ok) return loginPage(deps, req, res, 401, returnTo, 'Email or password is wrong.', email.slice(0, 254));
    await startSession(deps, res, result.account);
    res.redirect(303, returnTo);
  });
  return router;
}
