import { SpeechError } from '@platform/errors';
import type { SpeechHooks } from '@platform/speech-jobs';
import { retryWhileStoreUnavailable } from '@platform/stores';
import type { SpeechStore } from './store';
import { reserveCharacters, settleCharacters } from './subscriptions';
import { recordHistory } from './history';
import { resolvePronunciationRules } from './pronunciation-dictionaries';
import { resolveVoice } from './voices';

/** The synthesis pipeline's hooks (`SpeechHooks` of libs/speech-jobs), every one of them, backed by the store. */
export type StoreHooks = Required<SpeechHooks>;

export function createStoreHooks(store: SpeechStore): StoreHooks {
  return {
    async resolveVoice(accountId, voiceId) {
      if (!accountId) return null;
      try {
        const voice = await resolveVoice(store, { accountId, voiceId });
        return {
          voiceId: voice.voiceId,
          name: voice.name,
          category: voice.category,
          engine: voice.engineParams,
          settings: voice.settings,
        };
      } catch (err) {
        if (err instanceof SpeechError && err.status === 'voice_not_found') return null;
        throw err;
      }
    },
    resolvePronunciation: (accountId, locators) => resolvePronunciationRules(store, accountId, locators),
    quota: {
      async reserve(accountId, characters, jobId, plan) {
        try {
          await reserveCharacters(store, { accountId, jobId, characters, ...(plan !== undefined ? { plan } : {}) });
          // The reservation id carries the account so settling needs nothing else.
          return { ok: true, reservationId: JSON.stringify([accountId, jobId]) };
        } catch (err) {
          if (err instanceof SpeechError && err.status === 'character_limit_exceeded')
            return { ok: false, status: 'character_limit_exceeded', message: err.message };
          throw err;
        }
      },
      async settle(reservationId, deliveredCharacters) {
        const parsed: unknown = JSON.parse(reservationId);
        if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string')
          throw new Error('malformed reservation id');
        const [accountId, jobId] = parsed as [string, string];
        // After the audio went out: a MongoDB restart or election must not turn it into free audio (the
        // reservation would stay until the stale-reservation sweep gives it back). Settling twice is a no-op.
        await retryWhileStoreUnavailable(() =>
          settleCharacters(store, { accountId, jobId, usedCharacters: deliveredCharacters }),
        );
      },
    },
    async recordHistory(record) {
      // Anonymous generations belong to no account and have no history.
      const accountId = record.accountId;
      if (!accountId) return;
      // Made once the generation ended; kept through a MongoDB restart or election like the charge (recording is idempotent per job).
      await retryWhileStoreUnavailable(() =>
        recordHistory(store, {
          accountId,
          jobId: record.historyItemId,
          historyItemId: record.historyItemId,
          createdAtMs: record.createdAtMs ?? record.createdAtUnix * 1000,
          voiceId: record.voiceId,
          voiceName: record.voiceName,
          modelId: record.modelId,
          text: record.text,
          characterCount: record.characterCount,
          contentType: record.contentType,
          state: record.state,
          settings: record.settings,
          ...(record.audio.length > 0 ? { audio: record.audio } : {}),
        }),
      );
    },
  };
}
