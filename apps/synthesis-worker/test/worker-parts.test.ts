import { createLogger } from '@platform/logger';
import { DEFAULT_VOICE_SETTINGS, renderParams } from '@platform/speech-engine';
import { startStaleReservationSweeper } from '../src/quota/stale-reservations';
import { createAudioBatcher } from '../src/synthesis/audio-batcher';
import { jobRenderParams } from '../src/synthesis/process-job';
import { ResumeMismatchError, skipSentAudio } from '../src/synthesis/resume';

const logger = createLogger('worker-test', 'silent');

describe('audio batcher', () => {
  it('gathers what arrives within one turn into one frame, in order', async () => {
    const frames: string[] = [];
    const batcher = createAudioBatcher(async (data) => {
      frames.push(data.toString());
    });
    batcher.push(Buffer.from('a'));
    batcher.push(Buffer.from('b'));
    await new Promise((resolve) => setImmediate(resolve));
    batcher.push(Buffer.from('c'));
    await batcher.done();
    expect(frames).toEqual(['ab', 'c']);
  });

  it('cuts a frame at maxBytes and runs markers after the audio pushed before them', async () => {
    const written: string[] = [];
    const batcher = createAudioBatcher(async (data) => {
      written.push(data.toString());
    }, 4);
    batcher.push(Buffer.from('1234'));
    batcher.push(Buffer.from('56'));
    batcher.then(async () => {
      written.push('marker');
    });
    await batcher.done();
    expect(written).toEqual(['1234', '56', 'marker']);
  });

  it('reports a failed write when done', async () => {
    const batcher = createAudioBatcher(async () => {
      throw new Error('redis gone');
    });
    batcher.push(Buffer.from('x'));
    await expect(batcher.done()).rejects.toThrow('redis gone');
  });
});

describe('stale reservation sweeper', () => {
  it('releases reservations older than the maximum age; concurrent sweeps share one', async () => {
    const ages: number[] = [];
    let finish: (n: number) => void = () => undefined;
    const sweeper = startStaleReservationSweeper({
      release: (olderThanMs) => {
        ages.push(olderThanMs);
        return new Promise<number>((resolve) => (finish = resolve));
      },
      logger,
      intervalMs: 0,
      maxAgeMs: 900_000,
    });
    const first = sweeper.sweep();
    const second = sweeper.sweep();
    finish(3);
    expect(await Promise.all([first, second])).toEqual([3, 3]);
    expect(ages).toEqual([900_000]);
    await sweeper.stop();
  });

  it('answers 0 when the store fails, and sweeps again afterwards', async () => {
    let calls = 0;
    const sweeper = startStaleReservationSweeper({
      release: async () => {
        calls++;
        if (calls === 1) throw new Error('mongod unreachable');
        return 1;
      },
      logger,
      intervalMs: 0,
      maxAgeMs: 1,
    });
    expect(await sweeper.sweep()).toBe(0);
    expect(await sweeper.sweep()).toBe(1);
    await sweeper.stop();
  });
});

describe('jobRenderParams', () => {
  const engine = { voice: 'en-us', variant: 'f3', pitch: 70, pitchRange: 60, speed: 200, amplitude: 100 };
  const voice = { voiceId: 'v1', name: 'Rachel', category: 'premade' as const, engine };

  it('renders the voice with the settings, in the requested language when there is one', () => {
    expect(jobRenderParams({ voice, settings: DEFAULT_VOICE_SETTINGS })).toEqual(
      renderParams(engine, DEFAULT_VOICE_SETTINGS),
    );
    expect(
      jobRenderParams({ voice, settings: DEFAULT_VOICE_SETTINGS, language: { id: 'de', espeak: 'de' } }).voice,
    ).toBe('de');
  });

  it('does not scale a cloned voice whose similarity the gateway applied', () => {
    const settings = { ...DEFAULT_VOICE_SETTINGS, similarity_boost: 0 };
    const cloned = { ...voice, category: 'cloned' as const, similarityApplied: true };
    expect(jobRenderParams({ voice: cloned, settings })).toEqual(
      renderParams(engine, settings, { similarityApplied: true }),
    );
    expect(jobRenderParams({ voice: cloned, settings }).pitch).not.toBe(jobRenderParams({ voice, settings }).pitch);
  });
});

describe('resuming after the audio already sent', () => {
  it('passes on only the bytes past what was sent, whatever the chunking', () => {
    const unsent = skipSentAudio(Buffer.from('abcdef'));
    expect(unsent(Buffer.from('ab')).toString()).toBe('');
    expect(unsent(Buffer.from('cdefg')).toString()).toBe('g');
    expect(unsent(Buffer.from('hi')).toString()).toBe('hi');
    expect(skipSentAudio(Buffer.alloc(0))(Buffer.from('xy')).toString()).toBe('xy');
  });

  it('a repeat that differs from what was sent is refused with its offset', () => {
    const unsent = skipSentAudio(Buffer.from('abcdef'));
    unsent(Buffer.from('abc'));
    expect(() => unsent(Buffer.from('dXf'))).toThrow(new ResumeMismatchError(4));
  });
});
