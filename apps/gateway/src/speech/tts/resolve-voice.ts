import { SpeechError } from '@platform/errors';
import { findPremadeVoice } from '@platform/speech-engine';
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
  if (premade) {
    return {
      voiceId: premade.voice_id,
      name: premade.name,
      category: 'premade',
      engine: premade.engine,
      settings: premade.settings,
    };
  }
  throw new SpeechError(404, 'voice_not_found', `voice ${JSON.stringify(voiceId)} does not exist`);
}
