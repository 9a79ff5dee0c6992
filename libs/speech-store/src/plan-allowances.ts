import { PLAN_NAMES, type PlanName } from '@platform/identity';
import { z } from 'zod';

/**
 * What each plan allows. The plan names are `PLAN_NAMES` of libs/identity (auth validates every plan it
 * writes against it); operators override the allowances with `SPEECH_PLANS`, which names only those plans.
 */
export { PLAN_NAMES, type PlanName };

export interface Plan {
  character_limit: number;
  voice_limit: number;
  max_voice_add_edits: number;
  /** Pronunciation dictionaries the account may keep (archived ones count). */
  pronunciation_dictionary_limit: number;
  /** Whether the plan may buy characters beyond its limit (reported, not sold here). */
  can_extend_character_limit: boolean;
}

export type Plans = Record<PlanName, Plan>;

export const DEFAULT_PLANS: Plans = {
  free: {
    character_limit: 10_000,
    voice_limit: 3,
    max_voice_add_edits: 10,
    pronunciation_dictionary_limit: 10,
    can_extend_character_limit: false,
  },
  starter: {
    character_limit: 30_000,
    voice_limit: 10,
    max_voice_add_edits: 30,
    pronunciation_dictionary_limit: 30,
    can_extend_character_limit: false,
  },
  creator: {
    character_limit: 100_000,
    voice_limit: 30,
    max_voice_add_edits: 95,
    pronunciation_dictionary_limit: 100,
    can_extend_character_limit: true,
  },
  pro: {
    character_limit: 500_000,
    voice_limit: 160,
    max_voice_add_edits: 250,
    pronunciation_dictionary_limit: 300,
    can_extend_character_limit: true,
  },
  enterprise: {
    character_limit: 2_000_000,
    voice_limit: 660,
    max_voice_add_edits: 1000,
    pronunciation_dictionary_limit: 1000,
    can_extend_character_limit: true,
  },
};

const planOverride = z
  .object({
    character_limit: z.number().int().min(0),
    voice_limit: z.number().int().min(0),
    max_voice_add_edits: z.number().int().min(0),
    pronunciation_dictionary_limit: z.number().int().min(0),
    can_extend_character_limit: z.boolean(),
  })
  .partial()
  .strict();

const plansOverride = z.record(z.enum(PLAN_NAMES), planOverride);

export class PlansConfigError extends Error {
  constructor(message: string) {
    super(`SPEECH_PLANS: malformed (${message})`);
    this.name = 'PlansConfigError';
  }
}

/**
 * Plans from configuration: `SPEECH_PLANS` is JSON such as `{"free":{"character_limit":20000}}`,
 * merged field by field over the defaults. Anything malformed stops the app at boot.
 */
export function loadPlans(json: string | undefined): Plans {
  if (json === undefined || json.trim() === '') return structuredClone(DEFAULT_PLANS);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new PlansConfigError('not JSON');
  }
  const result = plansOverride.safeParse(parsed);
  if (!result.success)
    throw new PlansConfigError(result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const plans = structuredClone(DEFAULT_PLANS);
  for (const name of PLAN_NAMES) Object.assign(plans[name], result.data[name] ?? {});
  return plans;
}

/** Unknown or missing plan names (an identity without `plan`) are treated as `free`. */
export function planName(value: string | undefined): PlanName {
  const lower = value?.toLowerCase();
  return (PLAN_NAMES as readonly string[]).includes(lower ?? '') ? (lower as PlanName) : 'free';
}

/**
 * Plan → BullMQ priority of its synthesis jobs (1 is served first): the dearest plan first, in
 * `PLAN_NAMES` order. Unknown plans queue with free.
 */
export function planPriority(plan: string | undefined): number {
  return PLAN_NAMES.length - PLAN_NAMES.indexOf(planName(plan));
}
