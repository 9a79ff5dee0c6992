import type { Plan, SubscriptionDoc } from '@platform/speech-store';

/**
 * The bodies of `GET /user` and `GET /user/subscription`. Every field the speech API assigns is there
 * with its meaning; the official ElevenLabs SDK also *requires* further fields (it rejects
 * the response without them), so those are added with honest values for a self-hosted account:
 * no invoices, no overage, no professional cloning, one-person workspace. The interface's "only in the
 * `/user` response" fields appear in `/user/subscription` too, because the SDK's `Subscription`
 * requires them (docs/speech.md, "Conflicts between the interface and the official SDK").
 */

function sdkSubscriptionFields(sub: SubscriptionDoc, plan: Plan) {
  return {
    voice_slots_used: sub.voiceCount,
    professional_voice_slots_used: 0,
    professional_voice_slots_used_in_workspace: 0,
    professional_voice_limit: 0,
    max_credit_limit_extension: 0,
    can_extend_voice_limit: false,
    can_use_instant_voice_cloning: plan.voice_limit > 0,
    can_use_professional_voice_cloning: false,
    current_overage: { amount: '0', currency: 'usd' },
    // SubscriptionStatusType: `free` for the free plan, `active` for the paid ones.
    status: sub.tier === 'free' ? 'free' : 'active',
    character_refresh_period: 'monthly_period',
  };
}

function seedUserSubscription(sub: SubscriptionDoc, plan: Plan) {
  return {
    tier: sub.tier,
    character_count: sub.characterCount,
    character_limit: plan.character_limit,
    can_extend_character_limit: plan.can_extend_character_limit,
    allowed_to_extend_character_limit: plan.can_extend_character_limit,
    voice_limit: plan.voice_limit,
    max_voice_add_edits: plan.max_voice_add_edits,
    voice_add_edit_counter: sub.voiceAddEditCounter,
  };
}

export function userBody(accountId: string, sub: SubscriptionDoc, plan: Plan) {
  return {
    subscription: { ...seedUserSubscription(sub, plan), ...sdkSubscriptionFields(sub, plan) },
    is_new_user: !sub.active,
    // Required by the SDK's `User`.
    user_id: accountId,
    workspace_id: accountId,
    created_at: Math.floor(new Date(sub.createdAt).getTime() / 1000),
    seat_type: 'workspace_admin',
    can_use_delayed_payment_methods: false,
    is_onboarding_completed: true,
    is_onboarding_checklist_completed: true,
  };
}

export function subscriptionBody(sub: SubscriptionDoc, plan: Plan) {
  return {
    ...seedUserSubscription(sub, plan),
    next_character_count_reset_unix: sub.nextResetUnix,
    ...sdkSubscriptionFields(sub, plan),
    // Required by the SDK's extended `Subscription`.
    open_invoices: [],
    has_open_invoices: false,
  };
}
