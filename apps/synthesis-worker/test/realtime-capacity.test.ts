import { createLogger } from '@platform/logger';
import type { PiperVoice } from '@platform/speech-engine';
import { realtimeSlots, resolveCapacity, type Calibration } from '../src/synthesis/realtime-capacity';

const logger = createLogger('capacity-test', 'silent');

describe('real-time slots', () => {
  it('is floor(cores × safety / stream RTF) when the cores are the limit', () => {
    // 2 cores × 0.7 / 0.27 core-seconds per audio second = 5.18 → 5 streams.
    expect(realtimeSlots({ cores: 2, safety: 0.7, streamRtf: 0.27, inferenceRtf: 0.12, max: 100 })).toBe(5);
    // Three workers sharing that machine, each told its share.
    expect(realtimeSlots({ cores: 2 / 3, safety: 0.7, streamRtf: 0.27, inferenceRtf: 0.12, max: 100 })).toBe(1);
  });

  it('is bounded by the one inference thread, however many cores', () => {
    // 32 cores would allow 82 streams; the thread serves 0.7 / 0.12 = 5.8 of them.
    expect(realtimeSlots({ cores: 32, safety: 0.7, streamRtf: 0.27, inferenceRtf: 0.12, max: 100 })).toBe(5);
  });

  it('never exceeds WORKER_CONCURRENCY and never drops below one slot', () => {
    expect(realtimeSlots({ cores: 8, safety: 0.7, streamRtf: 0.1, inferenceRtf: 0.05, max: 2 })).toBe(2);
    // A model slower than real time on this machine: one job at a time, not none.
    expect(realtimeSlots({ cores: 1, safety: 0.7, streamRtf: 1.8, inferenceRtf: 1.5, max: 4 })).toBe(1);
  });
});

describe('resolving the capacity at boot', () => {
  const voice = {} as PiperVoice;
  const measured: Calibration = { audioSeconds: 15, wallRtf: 0.2, cpuRtf: 0.25, inferenceRtf: 0.1 };
  const settings = { configured: 0, cores: 2, safety: 0.7, max: 10 };

  it('uses WORKER_REALTIME_STREAMS as it is, without calibrating', async () => {
    const measure = jest.fn(async () => measured);
    await expect(resolveCapacity({ ...settings, configured: 3 }, { state: 'loaded', voice }, logger, measure)).resolves.toEqual({ slots: 3, source: 'configured' });
    expect(measure).not.toHaveBeenCalled();
  });

  it('calibrates with the neural model, taking the larger of the wall and CPU real-time factors', async () => {
    const measure = jest.fn(async () => measured);
    const capacity = await resolveCapacity(settings, { state: 'loaded', voice }, logger, measure);
    // 2 × 0.7 / 0.25 = 5.6 → 5 (the wall RTF 0.2 alone would give 7).
    expect(capacity).toEqual({ slots: 5, source: 'calibrated', calibration: measured });
    expect(measure).toHaveBeenCalledTimes(1);
  });

  it('gives an eSpeak NG-only worker WORKER_CONCURRENCY slots', async () => {
    const measure = jest.fn(async () => measured);
    await expect(resolveCapacity(settings, { state: 'not_configured' }, logger, measure)).resolves.toEqual({ slots: 10, source: 'espeak' });
    await expect(resolveCapacity(settings, { state: 'failed', reason: 'corrupt' }, logger, measure)).resolves.toEqual({ slots: 10, source: 'espeak' });
    expect(measure).not.toHaveBeenCalled();
  });
});
