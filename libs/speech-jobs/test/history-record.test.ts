import { DEFAULT_VOICE_SETTINGS } from '@platform/speech-engine';
import { historyRecord, type HistoryJob } from '../src';

const job: HistoryJob = {
  jobId: 'J0b1d0000000000000001',
  accountId: 'acct1',
  voice: {
    voiceId: 'v1',
    name: 'Rachel',
    category: 'premade',
    engine: { voice: 'en-us', variant: 'f3', pitch: 55, pitchRange: 50, speed: 165, amplitude: 100 },
  },
  modelId: 'espeak_ng_v1',
  text: 'Héllo 👋',
  settings: { ...DEFAULT_VOICE_SETTINGS, stability: 0.3 },
  outputFormat: 'mp3_44100_128',
  createdAt: 1_700_000_000_999,
};

describe('historyRecord', () => {
  it('describes the job: its id is the item id, characters are code points, the time in seconds and milliseconds', () => {
    expect(historyRecord(job, { state: 'complete', contentType: 'audio/mpeg', audio: Buffer.from([1, 2, 3]) })).toEqual(
      {
        historyItemId: 'J0b1d0000000000000001',
        accountId: 'acct1',
        voiceId: 'v1',
        voiceName: 'Rachel',
        modelId: 'espeak_ng_v1',
        text: 'Héllo 👋',
        characterCount: 7,
        settings: { ...DEFAULT_VOICE_SETTINGS, stability: 0.3 },
        outputFormat: 'mp3_44100_128',
        contentType: 'audio/mpeg',
        state: 'complete',
        audio: Buffer.from([1, 2, 3]),
        createdAtUnix: 1_700_000_000,
        createdAtMs: 1_700_000_000_999,
      },
    );
  });

  it('carries no audio unless given, and no account for an anonymous job', () => {
    const { accountId: _, ...anonymous } = job;
    const record = historyRecord(anonymous, { state: 'cancelled', contentType: 'audio/mpeg' });
    expect(record.audio).toEqual(Buffer.alloc(0));
    expect(record).not.toHaveProperty('accountId');
    expect(record.state).toBe('cancelled');
  });
});
