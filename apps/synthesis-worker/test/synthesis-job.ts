import { DEFAULT_VOICE_SETTINGS, PREMADE_VOICES } from '@platform/speech-engine';
import type { SynthesisJobData } from '@platform/speech-jobs';
import { uniqueName } from '@platform/testing';

/** A short eSpeak NG job of the first premade voice under `keyPrefix`, as the gateway would enqueue it. */
export function synthesisJob(keyPrefix: string, overrides: Partial<SynthesisJobData> = {}): SynthesisJobData {
  const voice = PREMADE_VOICES[0]!;
  const now = Date.now();
  return {
    v: 1,
    jobId: uniqueName('job'),
    keyPrefix,
    voice: { voiceId: voice.voice_id, name: voice.name, category: 'premade', engine: voice.engine },
    modelId: 'eleven_multilingual_v2',
    text: 'A short sentence. And another one.',
    settings: DEFAULT_VOICE_SETTINGS,
    outputFormat: 'pcm_16000',
    kind: 'convert',
    recordHistory: false,
    createdAt: now,
    deadlineAt: now + 60_000,
    ...overrides,
  };
}
