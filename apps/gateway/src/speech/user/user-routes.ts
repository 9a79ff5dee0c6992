import { Router } from 'express';
import type { Logger } from '@platform/logger';
import { ensureSubscription, planOf, type SpeechStore } from '@platform/speech-store';
import { accountErrors, callerOf, handle } from './account';

/** `GET /user` and `GET /user/subscription`, with exactly the fields seed 000 gives each. */
export function userRoutes(deps: { store: SpeechStore; logger: Logger }): Router {
  const router = Router();
  router.get(
    '/user',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:read');
      const sub = await ensureSubscription(deps.store, caller.accountId, caller.plan);
      const plan = planOf(deps.store, sub.tier);
      res.json({
        subscription: {
          tier: sub.tier,
          character_count: sub.characterCount,
          character_limit: plan.character_limit,
          can_extend_character_limit: plan.can_extend_character_limit,
          allowed_to_extend_character_limit: plan.can_extend_character_limit,
          voice_limit: plan.voice_limit,
          max_voice_add_edits: plan.max_voice_add_edits,
          voice_add_edit_counter: sub.voiceAddEditCounter,
        },
        is_new_user: !sub.active,
      });
    }),
  );
  router.get(
    '/user/subscription',
    handle(async (req, res) => {
      const caller = callerOf(req, 'speech:read');
      const sub = await ensureSubscription(deps.store, caller.accountId, caller.plan);
      const plan = planOf(deps.store, sub.tier);
      res.json({
        tier: sub.tier,
        character_count: sub.characterCount,
        character_limit: plan.character_limit,
        voice_limit: plan.voice_limit,
        next_character_count_reset_unix: sub.nextResetUnix,
      });
    }),
  );
  router.use('/user', accountErrors(deps.logger));
  return router;
}
