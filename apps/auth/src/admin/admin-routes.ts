import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Deps } from '../deps';
import { sendNoStoreJson } from '../http/no-store-json';
import { getAccount, listAccountsPage, unlockAccount, updateAccountRights } from './admin-accounts';
import { appendAudit, listAudit, type AuditActor, type NewAuditEntry } from './admin-audit';
import { authenticateAdmin } from './admin-auth';
import {
  deleteClient,
  getClient,
  listClientsPage,
  registerClient,
  rotateClientSecret,
  updateClient,
} from './admin-clients';
import { AdminError, invalidRequest, sendAdminError } from './admin-errors';
import { listKeys, retireKey, rotateKey } from './admin-keys';
import { createInitialAccessToken, deleteInitialAccessToken } from './admin-registration-tokens';
import { parsePage } from './paging';

type Handler = (
  req: Request,
  actor: AuditActor,
  audit: (entry: Omit<NewAuditEntry, 'actor' | 'requestId'>) => Promise<void>,
) => Promise<{ status?: number; body: unknown }>;

const ID = /^[A-Za-z0-9._-]{1,128}$/;
function idParam(req: Request, name = 'id'): string {
  const id = req.params[name];
  if (typeof id !== 'string' || !ID.test(id)) throw invalidRequest(`${name}: not a valid identifier`);
  return id;
}

/**
 * The administration API (docs/auth.md "Administration"), JSON in and out: every call authenticated by
 * an admin token (admin-auth.ts), every change appended to `admin_audit` with its actor and request id
 * before the answer, every error `{error, error_description}` (400/401/403/404/409), no-store.
 */
export function adminRoutes(deps: Deps): Router {
  const audit = deps.adminAudit;
  const router = Router();
  const fail = (res: Response, next: NextFunction, err: unknown) =>
    err instanceof AdminError ? sendAdminError(res, err) : next(err);

  // Authentication before anything else reads the request (its body included).
  router.use((req, res, next) => {
    authenticateAdmin(deps, req, `/admin${req.path}`).then(
      (actor) => {
        res.locals.adminActor = actor;
        next();
      },
      (err: unknown) => fail(res, next, err),
    );
  });
  router.use(express.json({ limit: '16kb', strict: true }));

  const route = (handler: Handler) => (req: Request, res: Response, next: NextFunction) => {
    const actor = res.locals.adminActor as AuditActor;
    const requestId = res.getHeader('x-request-id');
    const record = (entry: Omit<NewAuditEntry, 'actor' | 'requestId'>) =>
      appendAudit(audit, { ...entry, actor, requestId: typeof requestId === 'string' ? requestId : null });
    handler(req, actor, record).then(
      ({ status, body }) => sendNoStoreJson(res, status ?? 200, body),
      (err: unknown) => fail(res, next, err),
    );
  };
  const body = (req: Request): unknown => req.body as unknown;

  router.get(
    '/clients',
    route(async (req) => ({ body: await listClientsPage(deps, parsePage(req.query)) })),
  );
  router.post(
    '/clients',
    route(async (req, _actor, record) => {
      const { client, secret } = await registerClient(deps, body(req));
      const { client_id: id, created_at: _created, ...fields } = client;
      await record({ action: 'client.create', target: { type: 'client', id }, changes: fields });
      return { status: 201, body: { ...client, ...(secret ? { client_secret: secret } : {}) } };
    }),
  );
  router.get(
    '/clients/:id',
    route(async (req) => ({ body: await getClient(deps, idParam(req)) })),
  );
  router.patch(
    '/clients/:id',
    route(async (req, _actor, record) => {
      const id = idParam(req);
      const { client, changes } = await updateClient(deps, id, body(req));
      await record({ action: 'client.update', target: { type: 'client', id }, changes });
      return { body: client };
    }),
  );
  router.post(
    '/clients/:id/secret',
    route(async (req, _actor, record) => {
      const id = idParam(req);
      const rotated = await rotateClientSecret(deps, id);
      await record({ action: 'client.secret.rotate', target: { type: 'client', id }, changes: {} });
      return { body: rotated };
    }),
  );
  router.delete(
    '/clients/:id',
    route(async (req, _actor, record) => {
      const id = idParam(req);
      const result = await deleteClient(deps, id);
      await record({ action: 'client.delete', target: { type: 'client', id }, changes: result });
      return { body: { client_id: id, deleted: true, ...result } };
    }),
  );

  router.post(
    '/registration-tokens',
    route(async (req, actor, record) => {
      const minted = await createInitialAccessToken(deps, body(req), actor);
      await record({
        action: 'registration_token.create',
        target: { type: 'registration_token', id: minted.id },
        changes: { expires_at: minted.expires_at, max_uses: minted.max_uses },
      });
      return { status: 201, body: minted };
    }),
  );
  router.delete(
    '/registration-tokens/:id',
    route(async (req, _actor, record) => {
      const id = idParam(req);
      await deleteInitialAccessToken(deps, id);
      await record({ action: 'registration_token.delete', target: { type: 'registration_token', id }, changes: {} });
      return { body: { id, deleted: true } };
    }),
  );

  router.get(
    '/accounts',
    route(async (req) => ({ body: await listAccountsPage(deps, parsePage(req.query), req.query.email) })),
  );
  router.get(
    '/accounts/:id',
    route(async (req) => ({ body: await getAccount(deps, idParam(req)) })),
  );
  router.patch(
    '/accounts/:id',
    route(async (req, _actor, record) => {
      const id = idParam(req);
      const { account, changes } = await updateAccountRights(deps, id, body(req));
      await record({ action: 'account.update', target: { type: 'account', id }, changes });
      return { body: account };
    }),
  );
  router.post(
    '/accounts/:id/unlock',
    route(async (req, _actor, record) => {
      const id = idParam(req);
      const result = await unlockAccount(deps, id);
      await record({ action: 'account.unlock', target: { type: 'account', id }, changes: result });
      return { body: result };
    }),
  );

  router.get(
    '/keys',
    route(async () => ({ body: { items: await listKeys(deps) } })),
  );
  router.post(
    '/keys/rotate',
    route(async (_req, _actor, record) => {
      const rotated = await rotateKey(deps);
      await record({
        action: 'signing_key.rotate',
        target: { type: 'signing_key', id: rotated.current },
        changes: rotated,
      });
      return { body: rotated };
    }),
  );
  router.post(
    '/keys/:kid/retire',
    route(async (req, _actor, record) => {
      const kid = idParam(req, 'kid');
      await retireKey(deps, kid);
      await record({ action: 'signing_key.retire', target: { type: 'signing_key', id: kid }, changes: {} });
      return { body: { kid, retired: true } };
    }),
  );

  router.get(
    '/audit',
    route(async (req) => ({ body: await listAudit(audit, parsePage(req.query)) })),
  );

  // Everything else under /admin (authenticated above, so the API's shape is told to administrators only).
  router.use(
    route(async () => {
      throw new AdminError(404, 'not_found', 'no such admin endpoint');
    }),
  );
  // A malformed JSON body (express.json) in the OAuth error shape.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendNoStoreJson(res, status, {
        error: 'invalid_request',
        error_description: status === 413 ? 'request body too large' : 'malformed JSON body',
      });
      return;
    }
    next(err);
  });
  return router;
}
