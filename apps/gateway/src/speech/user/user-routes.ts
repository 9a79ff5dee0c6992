import { Router } from 'express';
import type { Logger } from '@platform/logger';
import { ensureSubscription, planOf, type SpeechStore } from '@platform/speech-store';
import { requestCaller } from '../caller';
import { speechErrorHandler } from '../speech-errors';
import { subscriptionBody, userBody } from './user-body';

/** `GET /user` and `GET /user/subscription`, with the fields the speech API gives each (plus those the official SDK requires: user-body.ts). */
export function userRoutes(deps: { store: SpeechStore; logger: Logger }): Router {
  const router = Router();
  router.get('/user', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const sub = await ensureSubscription(deps.store, caller.sub, caller.plan);
    const plan = planOf(deps.store, sub.tier);
    res.json(userBody(caller.sub, sub, plan));
  });
  router.get('/user/subscription', async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const sub = await ensureSubscription(deps.store, caller.sub, caller.plan);
    const plan = planOf(deps.store, sub.tier);
    res.json(subscriptionBody(sub, plan));
  });
  router.use(speechErrorHandler(deps.logger));
  return router;
}
