import { z } from 'zod/v4';
import { PLAN_NAMES } from '@platform/speech-store';

const count = z.int().min(0);

/** The subscription fields of both `/user` (`subscription`) and `/user/subscription`. */
const subscriptionFields = {
  tier: z.enum(PLAN_NAMES),
  character_count: count.meta({
    description: 'Characters used this month, including reservations of generations still running.',
  }),
  character_limit: count,
  can_extend_character_limit: z.boolean(),
  allowed_to_extend_character_limit: z.boolean(),
  voice_limit: count,
  max_voice_add_edits: count,
  voice_add_edit_counter: count,
  voice_slots_used: count,
  professional_voice_slots_used: count,
  professional_voice_slots_used_in_workspace: count,
  professional_voice_limit: count,
  max_credit_limit_extension: count,
  can_extend_voice_limit: z.boolean(),
  can_use_instant_voice_cloning: z.boolean(),
  can_use_professional_voice_cloning: z.boolean(),
  current_overage: z.looseObject({ amount: z.string(), currency: z.string() }),
  status: z.enum(['free', 'active']),
  character_refresh_period: z.enum(['monthly_period']),
};

/** `GET /v1/user`. */
export const user = z.looseObject({
  subscription: z.looseObject(subscriptionFields),
  is_new_user: z.boolean().meta({ description: 'True until the account’s first generation or voice change.' }),
  user_id: z.string(),
  workspace_id: z.string(),
  created_at: z.int().meta({ description: 'Unix seconds.' }),
  seat_type: z.string(),
  can_use_delayed_payment_methods: z.boolean(),
  is_onboarding_completed: z.boolean(),
  is_onboarding_checklist_completed: z.boolean(),
});

/** `GET /v1/user/subscription`. */
export const subscription = z.looseObject({
  ...subscriptionFields,
  next_character_count_reset_unix: z
    .int()
    .meta({ description: 'Unix seconds: 00:00 UTC on the first day of next month.' }),
  open_invoices: z.array(z.unknown()).max(0),
  has_open_invoices: z.literal(false),
});
