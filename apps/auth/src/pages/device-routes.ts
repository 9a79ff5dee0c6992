import { Router, type Request, type Response } from 'express';
import { findClient } from '../clients/clients';
import type { Deps } from '../deps';
import { clientAddress } from '../http/client-address';
import { findByUserCode, formatUserCode, normalizeUserCode, retireUserCode, writeDevice } from '../device/device-codes';
import { formBody, paramsOf } from '../oauth/params';
import { escapeHtml, hidden, scopeList, sendPage } from './html';
import { csrfToken, csrfValid, loginRedirect, sessionAccount } from './session';

const WINDOW_SECONDS = 900;
// Namespaced by the auth database so separate deployments (and test runs) sharing a Redis do not share counters.
const attemptsKey = (deps: Deps, ip: string) => `auth:user-code-failures:${deps.config.MONGO_DB}:${ip}`;

function entryPage(deps: Deps, req: Request, res: Response, status: number, userCode: string, error?: string): void {
  const csrf = csrfToken(deps, req, res);
  sendPage(
    res,
    status,
    'Connect a device',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/device">${hidden('csrf', csrf)}
<label>Code shown on your device <input name="user_code" value="${escapeHtml(userCode)}" autocomplete="off" autocapitalize="characters" required maxlength="20"></label>
<button type="submit" class="primary">Continue</button></form>`,
  );
}

/** Failed user-code entries per client address, so the 34-bit code space cannot be searched (RFC 8628 §5.1). */
async function tooManyFailures(deps: Deps, ip: string): Promise<boolean> {
  const count = Number((await deps.redis.get(attemptsKey(deps, ip))) ?? 0);
  return count >= deps.config.USER_CODE_MAX_ATTEMPTS;
}

async function recordFailure(deps: Deps, ip: string): Promise<void> {
  const key = attemptsKey(deps, ip);
  const count = await deps.redis.incr(key);
  if (count === 1) await deps.redis.expire(key, WINDOW_SECONDS);
}

/** `GET/POST /device` and `POST /device/decision`: the RFC 8628 verification page. */
export function deviceRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/device', async (req, res) => {
    const given = typeof req.query.user_code === 'string' ? req.query.user_code.slice(0, 20) : '';
    const account = await sessionAccount(deps, req);
    if (!account)
      return res.redirect(303, loginRedirect(given ? `/device?user_code=${encodeURIComponent(given)}` : '/device'));
    entryPage(deps, req, res, 200, given);
  });

  router.post('/device', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    const account = await sessionAccount(deps, req);
    if (!account) return res.redirect(303, loginRedirect('/device'));
    const given = typeof params.user_code === 'string' ? params.user_code.slice(0, 20) : '';
    if (!csrfValid(req, params.csrf))
      return entryPage(deps, req, res, 403, given, 'Your form expired. Please try again.');
    const ip = await clientAddress(req, deps.config.INTERNAL_SECRET);
    if (await tooManyFailures(deps, ip))
      return entryPage(deps, req, res, 429, '', 'Too many wrong codes. Wait 15 minutes and try again.');
    const normalized = normalizeUserCode(given);
    const found = normalized ? await findByUserCode(deps, normalized) : null;
    if (!normalized || !found) {
      await recordFailure(deps, ip);
      return entryPage(deps, req, res, 400, given, 'That code is not valid or has expired.');
    }
    const client = await findClient(deps.clients, found.record.clientId);
    const csrf = csrfToken(deps, req, res);
    sendPage(
      res,
      200,
      `Allow ${client?.name ?? found.record.clientId}?`,
      `<p>Signed in as <strong>${escapeHtml(account.email)}</strong>. Code <strong>${escapeHtml(formatUserCode(normalized))}</strong>.</p>
<p>The device asks to:</p>${scopeList(found.record.scopes)}
<form method="post" action="/device/decision">${hidden('csrf', csrf)}${hidden('user_code', normalized)}
<div class="actions"><button type="submit" class="primary" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></div></form>`,
    );
  });

  router.post('/device/decision', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    const account = await sessionAccount(deps, req);
    if (!account) return res.redirect(303, loginRedirect('/device'));
    if (!csrfValid(req, params.csrf)) return entryPage(deps, req, res, 403, '', 'Your form expired. Please try again.');
    const normalized = typeof params.user_code === 'string' ? normalizeUserCode(params.user_code) : undefined;
    const found = normalized ? await findByUserCode(deps, normalized) : null;
    if (!normalized || !found) return entryPage(deps, req, res, 400, '', 'That code is not valid or has expired.');
    const approve = params.decision === 'approve';
    await writeDevice(deps, found.key, { ...found.record, status: approve ? 'approved' : 'denied', sub: account._id });
    await retireUserCode(deps, normalized);
    sendPage(
      res,
      200,
      approve ? 'Device connected' : 'Request denied',
      `<p>${approve ? 'You can return to your device.' : 'The device was not given access.'}</p>`,
    );
  });

  return router;
}
