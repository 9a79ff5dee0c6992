import { createLogger } from '@platform/logger';
import type { PiperVoice } from '@platform/speech-engine';
import type { CalibrationRun } from '../src/synthesis/calibration-run';
import {
  contendedRender,
  levelKeptUp,
  realtimeSlots,
  type CalibrationLevel,
  type PieceTiming,
} from '../src/synthesis/capacity-model';
import { resolveCapacity } from '../src/synthesis/realtime-capacity';

const logger = createLogger('capacity-test', 'silent');

const piece = (renderSeconds: number, inferenceSeconds: number, audioSeconds: number): PieceTiming => ({
  renderSeconds,
  inferenceSeconds,
  audioSeconds,
});

/**
 * One calibration stream alone as the 2-core development machine measured it (one inference
 * thread): a first piece of a second's audio, then the rest of the sentence rendered in 0.70 s.
 * Over the whole stream that is wall RTF 0.157 and inference RTF 0.116, from which the old
 * arithmetic, floor(min(cores × 0.7 / 0.157, 0.7 / 0.116)), gave 6 slots on 2 cores and 2 on
 * WORKER_CORES 0.67; bench/capacity found a gap from the fourth stream on the whole machine.
 */
const devMachine: CalibrationLevel = {
  streams: [[piece(0.3, 0.12, 1.0), piece(0.7, 0.54, 4.8), piece(0.73, 0.62, 5.2)]],
  wallSeconds: 1.73,
  cpuSeconds: 1.4,
};

/** A faster model: four inference threads (process CPU three times the wall time). */
const fourThreads: CalibrationLevel = {
  streams: [[piece(0.1, 0.05, 1.0), piece(0.2, 0.12, 4.8), piece(0.22, 0.13, 5.2)]],
  wallSeconds: 0.52,
  cpuSeconds: 1.56,
};

describe('real-time slots from one stream measured alone', () => {
  it("gives the development machine one slot per worker: the second piece of a second stream waits for the first stream's inference", () => {
    // Two streams: 0.70 + 0.62 s before the second piece, past 0.7 × the first piece's 1.0 s.
    expect(realtimeSlots(devMachine, { cores: 2, safety: 0.7, max: 16 })).toBe(1);
    // Three workers sharing the machine: one each, the three streams bench/capacity found gap-free.
    expect(realtimeSlots(devMachine, { cores: 2 / 3, safety: 0.7, max: 16 })).toBe(1);
  });

  it('is bounded by the inference thread however many cores, and by the cores the renderings keep busy', () => {
    // Thread: 0.2 + (n − 1) × 0.13 ≤ 0.7 up to n = 4; cores: 3 × (0.2 + (n − 1) × 0.22) / 8 ≤ 0.7 up to 8.
    expect(realtimeSlots(fourThreads, { cores: 8, safety: 0.7, max: 16 })).toBe(4);
    // On 2 cores the renderings' three busy cores each are the limit: 3 × (0.2 + 0.22) / 2 = 0.63 ≤ 0.7 at 2, 0.96 at 3.
    expect(realtimeSlots(fourThreads, { cores: 2, safety: 0.7, max: 16 })).toBe(2);
  });

  it('checks every later piece, not the stream on average', () => {
    // A long second piece after a short first one stutters even though the whole stream is fast.
    const shortFirst: CalibrationLevel = {
      streams: [[piece(0.05, 0.03, 0.5), piece(0.3, 0.2, 6), piece(0.2, 0.15, 6)]],
      wallSeconds: 0.6,
      cpuSeconds: 0.5,
    };
    // Two streams: 0.3 + 0.2 = 0.5 s for the second piece, past 0.7 × 0.5 s of audio before it.
    expect(realtimeSlots(shortFirst, { cores: 8, safety: 0.7, max: 16 })).toBe(1);
  });

  it('never exceeds WORKER_CONCURRENCY and never drops below one slot', () => {
    expect(realtimeSlots(fourThreads, { cores: 8, safety: 0.7, max: 2 })).toBe(2);
    const slowerThanRealTime: CalibrationLevel = {
      streams: [[piece(1.5, 1.2, 1.0), piece(6, 5, 4)]],
      wallSeconds: 7.5,
      cpuSeconds: 6,
    };
    expect(realtimeSlots(slowerThanRealTime, { cores: 1, safety: 0.7, max: 4 })).toBe(1);
  });

  it('estimates a contended rendering no shorter than the rendering alone', () => {
    const pieces = devMachine.streams[0]!;
    expect(contendedRender(pieces[1]!, pieces, 1, 1, 2)).toBeCloseTo(0.7);
    // Three streams: two inferences of up to 0.62 s may go first.
    expect(contendedRender(pieces[1]!, pieces, 1, 3, 2)).toBeCloseTo(0.7 + 2 * 0.62);
  });

  it("reads a measured level as kept up only when every stream's later pieces were ready in time", () => {
    expect(levelKeptUp(devMachine, 0.7)).toBe(true);
    const oneLate: CalibrationLevel = {
      ...devMachine,
      streams: [devMachine.streams[0]!, [piece(0.5, 0.2, 1.0), piece(1.26, 0.9, 4.8)]],
    };
    expect(levelKeptUp(oneLate, 0.7)).toBe(false);
  });
});

describe('resolving the capacity at boot', () => {
  const voice = {} as PiperVoice;
  const settings = { configured: 0, cores: 8, safety: 0.7, max: 16 };
  /** A fake engine: the four-thread model alone, and at `gapFrom` streams and beyond a second piece that arrives late. */
  const fakeRun = (gapFrom: number, alone = fourThreads) => {
    const levels: number[] = [];
    const run: CalibrationRun = async (streams) => {
      levels.push(streams);
      if (streams === 1) return alone;
      const late = streams >= gapFrom;
      const pieces = [piece(0.1 * streams, 0.05, 1.0), piece(late ? 0.9 : 0.5, 0.3, 4.8), piece(0.5, 0.3, 5.2)];
      return { streams: Array.from({ length: streams }, () => pieces), wallSeconds: streams, cpuSeconds: streams };
    };
    return { levels, runFor: () => run };
  };

  it('uses WORKER_REALTIME_STREAMS as it is, without calibrating', async () => {
    const fake = fakeRun(99);
    await expect(
      resolveCapacity({ ...settings, configured: 3 }, { state: 'loaded', voice }, logger, fake.runFor),
    ).resolves.toEqual({ slots: 3, source: 'configured' });
    expect(fake.levels).toEqual([]);
  });

  it("checks the model's slots with streams run at once and keeps the largest level that kept up", async () => {
    // The model allows 4 on 8 cores; the fake engine's third concurrent stream comes in late.
    const fake = fakeRun(3);
    const capacity = await resolveCapacity(settings, { state: 'loaded', voice }, logger, fake.runFor);
    expect(capacity).toMatchObject({
      slots: 2,
      source: 'calibrated',
      calibration: { modelSlots: 4, checkedSlots: 2, aloneKeptUp: true },
    });
    expect(fake.levels).toEqual([1, 2, 3]);
  });

  it('never runs more streams at once than the model allows, and takes its number when every level kept up', async () => {
    const fake = fakeRun(99);
    await expect(
      resolveCapacity({ ...settings, cores: 2 }, { state: 'loaded', voice }, logger, fake.runFor),
    ).resolves.toMatchObject({ slots: 2, calibration: { modelSlots: 2 } });
    expect(fake.levels).toEqual([1, 2]);
  });

  it('starts no level that would end past the time budget, keeping the levels checked so far: fewer slots, never more', async () => {
    // One stream alone took 10 s (the same cores in use): two at once fit a 25 s budget, three do not.
    const fake = fakeRun(99, { ...fourThreads, wallSeconds: 10, cpuSeconds: 30 });
    await expect(resolveCapacity(settings, { state: 'loaded', voice }, logger, fake.runFor, 25)).resolves.toMatchObject(
      { slots: 2, calibration: { modelSlots: 4, checkedSlots: 2 } },
    );
    expect(fake.levels).toEqual([1, 2]);
    const none = fakeRun(99);
    await expect(resolveCapacity(settings, { state: 'loaded', voice }, logger, none.runFor, 0)).resolves.toMatchObject({
      slots: 1,
      calibration: { modelSlots: 4, checkedSlots: 1 },
    });
    expect(none.levels).toEqual([1]);
  });

  it('serves one job at a time when one stream alone is not real-time, and says so', async () => {
    const warn = jest.fn();
    const slow: CalibrationLevel = {
      streams: [[piece(1.5, 1.2, 1.0), piece(6, 5, 4)]],
      wallSeconds: 7.5,
      cpuSeconds: 6,
    };
    const capacity = await resolveCapacity(
      settings,
      { state: 'loaded', voice },
      { ...logger, warn } as unknown as typeof logger,
      () => async () => slow,
    );
    expect(capacity).toMatchObject({ slots: 1, calibration: { aloneKeptUp: false, modelSlots: 1 } });
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ slots: 1 }), expect.stringContaining('not real-time'));
  });

  it('gives an eSpeak NG-only worker WORKER_CONCURRENCY slots', async () => {
    const fake = fakeRun(99);
    await expect(resolveCapacity(settings, { state: 'not_configured' }, logger, fake.runFor)).resolves.toEqual({
      slots: 16,
      source: 'espeak',
    });
    await expect(
      resolveCapacity(settings, { state: 'failed', reason: 'corrupt' }, logger, fake.runFor),
    ).resolves.toEqual({ slots: 16, source: 'espeak' });
    expect(fake.levels).toEqual([]);
  });
});
