import { SpeechError } from '@platform/errors';
import { findPremadeVoice, type PremadeVoice, type VoiceCatalogue } from '@platform/speech-engine';
import type { ResolvedVoice, SpeechHooks } from '@platform/speech-jobs';

/** The account's voice (the speech store, when wired), else a premade voice, else `voice_not_found`. */
export async function resolveVoice(
  hooks: SpeechHooks,
  accountId: string | undefined,
  voiceId: string,
): Promise<ResolvedVoice> {
  const own = hooks.resolveVoice ? await hooks.resolveVoice(accountId, voiceId) : null;
  if (own) return own;
  const premade = findPremadeVoice(voiceId);
  if (premade) return resolvedPremade(premade);
  throw new SpeechError(404, 'voice_not_found', `voice ${JSON.stringify(voiceId)} does not exist`);
}

/**
 * `hooks` whose `resolveVoice` answers, after the account's voices, with the voices of the
 * deployment's catalogue (the premade ones and those of the voices directory's catalogue file).
 */
export function withCatalogueVoices(hooks: SpeechHooks, voices: VoiceCatalogue): SpeechHooks {
  const accountVoice = hooks.resolveVoice;
  return {
    ...hooks,
    async resolveVoice(accountId, voiceId) {
      const own = accountVoice ? await accountVoice(accountId, voiceId) : null;
      const listed = own ? null : voices.findVoice(voiceId);
      return own ?? (listed ? resolvedPremade(listed) : null);
    },
  };
}

function resolvedPremade(premade: PremadeVoice): ResolvedVoice {
  return {
    voiceId: premade.voice_id,
    name: premade.name,
    category: 'premade',
    engine: premade.engine,
    settings: premade.settings,
  };
}
