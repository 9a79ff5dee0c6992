import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod/v4';
import {
  INTERNAL_ID,
  accountPatch,
  internalApiKeyCreation,
  internalApiKeyLookup,
  internalApiKeyPage,
  internalLogin,
  internalLoginUnlock,
  internalRefresh,
} from '@platform/contracts';
import { toPublicAccount } from '../accounts/account-model';
import { changeAccount } from '../accounts/account-changes';
import {
  EmailTakenError,
  PasswordRejectedError,
  createAccount,
  findAccount,
  newAccountInput,
} from '../accounts/accounts';
import { unlockLogins } from '../accounts/login-limits';
import { signIn } from '../accounts/sign-in';
import {
  API_KEYS_PER_ACCOUNT,
  ApiKeyLimitError,
  createApiKey,
  listApiKeys,
  listLiveApiKeys,
  lookupApiKey,
  revokeApiKey,
  toPublicApiKey,
} from '../api-keys/api-keys';
import { MintRefused, mintApiKey } from '../api-keys/mint-api-key';
import type { Deps } from '../deps';
import { requireInternalSecret } from './internal-auth';
import { loginTokens, refreshLogin } from './first-party-login';

function fieldErrors(err: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of err.issues) {
    const key = issue.path.map(String).join('.') || '_';
    fields[key] ??= issue.message;
  }
  return fields;
}

function invalidFields(res: Response, fields: Record<string, string>): void {
  res.status(400).json({ error: 'invalid_request', error_description: 'invalid fields', fields });
}

function invalid(res: Response, err: z.ZodError): void {
  invalidFields(res, fieldErrors(err));
}

function noSuchAccount(res: Response): void {
  res.status(404).json({ error: 'not_found', error_description: 'no such account' });
}

/**
 * Answers the refusals an account write can meet (the email is another account's; a new password is
 * refused against the stored email and name) and says whether it did: anything else is a bug, rethrown.
 */
function refusedAccountWrite(res: Response, err: unknown): boolean {
  if (err instanceof EmailTakenError) {
    res.status(409).json({ error: 'email_taken', error_description: 'an account with this email exists' });
    return true;
  }
  if (err instanceof PasswordRejectedError) {
    invalidFields(res, { password: err.message });
    return true;
  }
  return false;
}

function idParam(req: Request): string | undefined {
  const id = req.params.id;
  return typeof id === 'string' && INTERNAL_ID.test(id) ? id : undefined;
}

/** The endpoints content and the gateway call (docs/architecture.md "Internal endpoints of auth"). */
export function internalRoutes(deps: Deps): Router {
  const router = Router();
  router.use(requireInternalSecret(deps.config.INTERNAL_SECRET));
  router.use(express.json({ limit: '16kb' }));

  router.post('/accounts', async (req, res) => {
    const parsed = newAccountInput.safeParse(req.body ?? {});
    if (!parsed.success) return invalid(res, parsed.error);
    try {
      const account = await createAccount(deps.accounts, {
        ...parsed.data,
        plan: parsed.data.plan ?? deps.config.NEW_ACCOUNT_PLAN,
      });
      res.status(201).json(toPublicAccount(account));
    } catch (err) {
      if (!refusedAccountWrite(res, err)) throw err;
    }
  });

  router.get('/accounts/:id', async (req, res) => {
    const id = idParam(req);
    const account = id ? await findAccount(deps.accounts, id) : null;
    if (!account) {
      noSuchAccount(res);
      return;
    }
    res.json(toPublicAccount(account));
  });

  router.patch('/accounts/:id', async (req, res) => {
    const id = idParam(req);
    const parsed = accountPatch.safeParse(req.body ?? {});
    if (!parsed.success) return invalid(res, parsed.error);
    try {
      const account = id ? await changeAccount(deps, id, parsed.data) : null;
      if (!account) {
        noSuchAccount(res);
        return;
      }
      res.json(toPublicAccount(account));
    } catch (err) {
      if (!refusedAccountWrite(res, err)) throw err;
    }
  });

  router.post('/login', async (req, res) => {
    const parsed = internalLogin.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(401).json({ error: 'invalid_grant', error_description: 'email or password is wrong' });
      return;
    }
    const { email, password, client_address: address } = parsed.data;
    const result = await signIn(deps, { email, password, address: address ?? req.ip ?? 'unknown' });
    res.setHeader('Cache-Control', 'no-store');
    if (!result.ok && result.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(result.retryAfterSeconds));
      res.status(429).json({
        error: 'too_many_attempts',
        error_description: 'too many sign-in attempts; retry later',
        retry_after: result.retryAfterSeconds,
      });
      return;
    }
    if (!result.ok) {
      res.status(401).json({ error: 'invalid_grant', error_description: 'email or password is wrong' });
      return;
    }
    res.json(await loginTokens(deps, result.account));
  });

  // Admin unlock of the sign-in limits (the CLI's logins:unlock does the same).
  router.post('/login-locks/unlock', async (req, res) => {
    const parsed = internalLoginUnlock.safeParse(req.body ?? {});
    if (!parsed.success) return invalid(res, parsed.error);
    const cleared = await unlockLogins(deps.redis, deps.config.MONGO_DB, parsed.data);
    res.json({ cleared });
  });

  router.post('/refresh', async (req, res) => {
    const parsed = internalRefresh.safeParse(req.body ?? {});
    const answer = parsed.success ? await refreshLogin(deps, parsed.data.refresh_token) : null;
    if (!answer) {
      res
        .status(401)
        .json({ error: 'invalid_grant', error_description: 'refresh token is invalid, expired, revoked or reused' });
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.json(answer);
  });

  router.post('/api-keys/lookup', async (req, res) => {
    const parsed = internalApiKeyLookup.safeParse(req.body ?? {});
    const found = parsed.success ? await lookupApiKey(deps.apiKeys, deps.accounts, parsed.data.key) : null;
    if (!found) {
      res.status(404).json({ error: 'invalid_api_key', error_description: 'unknown or revoked API key' });
      return;
    }
    res.json(found);
  });

  // Additive to the contract: API key management for an account (the admin CLI does the same).
  router.post('/accounts/:id/api-keys', async (req, res) => {
    const id = idParam(req);
    const parsed = internalApiKeyCreation.safeParse(req.body ?? {});
    if (!parsed.success) return invalid(res, parsed.error);
    const account = id ? await findAccount(deps.accounts, id) : null;
    if (!account) {
      noSuchAccount(res);
      return;
    }
    const { name, scopes, access_token: accessToken } = parsed.data;
    try {
      const { key, doc } =
        accessToken !== undefined
          ? await mintApiKey(deps, account._id, { accessToken, name, ...(scopes ? { scopes } : {}) })
          : await createApiKey(deps.apiKeys, account._id, name, {
              ...(scopes ? { scopes } : {}),
              maxLive: API_KEYS_PER_ACCOUNT,
            });
      res.status(201).json({ ...toPublicApiKey(doc), key });
    } catch (err) {
      if (err instanceof MintRefused) {
        res.status(err.status).json({ error: err.error, error_description: err.message });
        return;
      }
      if (!(err instanceof ApiKeyLimitError)) throw err;
      res.status(409).json({ error: 'api_key_limit', error_description: err.message });
    }
  });

  // Without page_size: every key of the account, revoked ones too (the admin view). With page_size
  // (1–100) and optionally start_after (a key id): the live keys, oldest first, one page at a time.
  router.get('/accounts/:id/api-keys', async (req, res) => {
    const id = idParam(req);
    if (req.query.page_size === undefined) {
      res.json({ items: id ? (await listApiKeys(deps.apiKeys, id)).map(toPublicApiKey) : [] });
      return;
    }
    const query = internalApiKeyPage.safeParse(req.query);
    if (!query.success) return invalid(res, query.error);
    const page = id
      ? await listLiveApiKeys(deps.apiKeys, id, query.data.page_size, query.data.start_after)
      : { items: [], nextStartAfter: null };
    res.json({ items: page.items.map(toPublicApiKey), next_start_after: page.nextStartAfter });
  });

  // An account's own key: another account's (or an unknown, or revoked) key id is 404 alike.
  router.delete('/accounts/:id/api-keys/:keyId', async (req, res) => {
    const id = idParam(req);
    const keyId =
      typeof req.params.keyId === 'string' && INTERNAL_ID.test(req.params.keyId) ? req.params.keyId : undefined;
    const revoked = id && keyId ? await revokeApiKey(deps.apiKeys, deps.redis, keyId, id) : false;
    if (!revoked) {
      res.status(404).json({ error: 'not_found', error_description: 'no such active API key' });
      return;
    }
    res.status(204).end();
  });

  router.delete('/api-keys/:id', async (req, res) => {
    const id = idParam(req);
    const revoked = id ? await revokeApiKey(deps.apiKeys, deps.redis, id) : false;
    if (!revoked) {
      res.status(404).json({ error: 'not_found', error_description: 'no such active API key' });
      return;
    }
    res.status(204).end();
  });

  return router;
}
