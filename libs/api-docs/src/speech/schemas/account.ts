import { API_KEY_SCOPES } from '@platform/oauth-resource';
import { PLAN_NAMES } from '@platform/speech-store';
import { HISTORY_STATES } from '../code-lists';
import type { JsonObject } from '../json-helpers';
import { audioMediaTypes } from './synthesis';

const count = { type: 'integer', minimum: 0 };

/** The subscription fields of both `/user` (`subscription`) and `/user/subscription`. */
const subscriptionFields: JsonObject = {
  tier: { type: 'string', enum: [...PLAN_NAMES] },
  character_count: {
    ...count,
    description: 'Characters used this month, including reservations of generations still running.',
  },
  character_limit: count,
  can_extend_character_limit: { type: 'boolean' },
  allowed_to_extend_character_limit: { type: 'boolean' },
  voice_limit: count,
  max_voice_add_edits: count,
  voice_add_edit_counter: count,
  voice_slots_used: count,
  professional_voice_slots_used: count,
  professional_voice_slots_used_in_workspace: count,
  professional_voice_limit: count,
  max_credit_limit_extension: count,
  can_extend_voice_limit: { type: 'boolean' },
  can_use_instant_voice_cloning: { type: 'boolean' },
  can_use_professional_voice_cloning: { type: 'boolean' },
  current_overage: {
    type: 'object',
    required: ['amount', 'currency'],
    properties: { amount: { type: 'string' }, currency: { type: 'string' } },
  },
  status: { type: 'string', enum: ['free', 'active'] },
  character_refresh_period: { type: 'string', enum: ['monthly_period'] },
};
const subscriptionRequired = Object.keys(subscriptionFields);

export const userSchema = (): JsonObject => ({
  type: 'object',
  required: [
    'subscription',
    'is_new_user',
    'user_id',
    'workspace_id',
    'created_at',
    'seat_type',
    'can_use_delayed_payment_methods',
    'is_onboarding_completed',
    'is_onboarding_checklist_completed',
  ],
  properties: {
    subscription: { type: 'object', required: subscriptionRequired, properties: subscriptionFields },
    is_new_user: { type: 'boolean', description: 'True until the account’s first generation or voice change.' },
    user_id: { type: 'string' },
    workspace_id: { type: 'string' },
    created_at: { type: 'integer', description: 'Unix seconds.' },
    seat_type: { type: 'string' },
    can_use_delayed_payment_methods: { type: 'boolean' },
    is_onboarding_completed: { type: 'boolean' },
    is_onboarding_checklist_completed: { type: 'boolean' },
  },
});

export const subscriptionSchema = (): JsonObject => ({
  type: 'object',
  required: [...subscriptionRequired, 'next_character_count_reset_unix', 'open_invoices', 'has_open_invoices'],
  properties: {
    ...subscriptionFields,
    next_character_count_reset_unix: {
      type: 'integer',
      description: 'Unix seconds: 00:00 UTC on the first day of next month.',
    },
    open_invoices: { type: 'array', maxItems: 0 },
    has_open_invoices: { const: false },
  },
});

export const historyItemSchema = (): JsonObject => ({
  type: 'object',
  required: [
    'history_item_id',
    'voice_id',
    'voice_name',
    'model_id',
    'text',
    'date_unix',
    'character_count_from_request',
    'character_count_change_from',
    'character_count_change_to',
    'content_type',
    'state',
    'settings',
  ],
  properties: {
    history_item_id: {
      type: 'string',
      description: 'The generation’s job id (the `history-item-id` header of its answer).',
    },
    voice_id: { type: 'string' },
    voice_name: { type: 'string' },
    model_id: { type: ['string', 'null'], description: '`null` for a generation recorded without its model.' },
    text: { type: 'string' },
    date_unix: { type: 'integer' },
    character_count_from_request: count,
    character_count_change_from: count,
    character_count_change_to: {
      ...count,
      description: 'The characters charged: the request’s when `complete`, else 0.',
    },
    content_type: {
      type: 'string',
      description: `The audio's media type (${audioMediaTypes().join(', ')}, with parameters for PCM).`,
    },
    state: { type: 'string', enum: [...HISTORY_STATES] },
    settings: {
      type: 'object',
      required: ['stability', 'similarity_boost'],
      properties: { stability: { type: 'number' }, similarity_boost: { type: 'number' } },
    },
  },
  example: {
    history_item_id: '4kRr0cQ9Xw2mZp7LbN1v',
    voice_id: '21m00Tcm4TlvDq8ikWAM',
    voice_name: 'Rachel',
    model_id: 'espeak_ng_v1',
    text: 'Hello! This is a test.',
    date_unix: 1767225600,
    character_count_from_request: 22,
    character_count_change_from: 0,
    character_count_change_to: 22,
    content_type: 'audio/mpeg',
    state: 'complete',
    settings: { stability: 0.5, similarity_boost: 0.75 },
  },
});

export const historyPageSchema = (): JsonObject => ({
  type: 'object',
  required: ['history', 'last_history_item_id', 'has_more'],
  properties: {
    history: { type: 'array', items: { $ref: '#/components/schemas/HistoryItem' } },
    last_history_item_id: {
      type: ['string', 'null'],
      description: '`null` on an empty page; pass it as `start_after_history_item_id` for the next.',
    },
    has_more: { type: 'boolean' },
  },
});

export const historyDownloadRequestSchema = (): JsonObject => ({
  type: 'object',
  required: ['history_item_ids'],
  properties: {
    history_item_ids: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: { type: 'string', minLength: 1, maxLength: 64 },
      description: 'Repeats count once.',
    },
    output_format: {
      type: ['string', 'null'],
      enum: ['default', null],
      description: 'Only the audio as generated is served.',
    },
  },
});

const scopeList = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...API_KEY_SCOPES] },
};
const KEY_ID_PATTERN = '^key_[0-9a-f]{16}$';

const apiKeyFields: JsonObject = {
  key_id: { type: 'string', pattern: KEY_ID_PATTERN },
  name: { type: 'string', minLength: 1, maxLength: 100 },
  scopes: scopeList,
  hint: { type: 'string', description: 'The key’s first 10 characters.' },
  created_at: { type: 'string', format: 'date-time' },
};

export const apiKeySchema = (): JsonObject => ({
  type: 'object',
  required: Object.keys(apiKeyFields),
  properties: apiKeyFields,
});

export const newApiKeySchema = (): JsonObject => ({
  type: 'object',
  required: [...Object.keys(apiKeyFields), 'key'],
  properties: {
    ...apiKeyFields,
    key: { type: 'string', pattern: '^sk_[0-9a-f]{64}$', description: 'The secret, in this answer only.' },
  },
});

export const apiKeyRequestSchema = (): JsonObject => ({
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      pattern: '\\S',
      description: 'Trimmed; 1 to 100 characters.',
    },
    scopes: { ...scopeList, description: 'Default: every scope.' },
  },
});

export const apiKeyPageSchema = (): JsonObject => ({
  type: 'object',
  required: ['api_keys', 'has_more', 'last_key_id'],
  properties: {
    api_keys: { type: 'array', items: { $ref: '#/components/schemas/ApiKey' } },
    has_more: { type: 'boolean' },
    last_key_id: { type: ['string', 'null'], pattern: KEY_ID_PATTERN },
  },
});
