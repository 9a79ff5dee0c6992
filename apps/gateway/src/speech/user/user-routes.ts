import { Router } from 'express';
import type { Logger } from '@platform/logger';
import { ensureSubscription, planOf, type SpeechStore } from '@platform/speech-store';
import { accountErrors, callerOf, handle } from './account';
import { subscriptionBody, userBody } from './user-body';

/** `GET /user` and `GET /user/subscription`, with the fields seed 000 gives each (plus those the official SDK requires: user-body.ts). */
export function userRoutes(deps: { store: SpeechStore; logger: Logger }): Router {
  const router = Router();
  router.get(
    '/user',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:read');
      const sub = await ensureSubscription(deps.store, caller.accountId, caller.plan);
      const plan = planOf(deps.store, sub.tier);
      res.json(userBody(caller.accountId, sub, plan));
    }),
  );
  router.get(
    '/user/subscription',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:read');
      const sub = await ensureSubscription(deps.store, caller.accountId, caller.plan);
      const plan = planOf(deps.store, sub.tier);
      res.json(subscriptionBody(sub, plan));
    }),
  );
  router.use('/user', accountErrors(deps.logger));
  return router;
}
