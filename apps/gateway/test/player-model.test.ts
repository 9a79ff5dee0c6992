import { resolveOutputFormat } from '@platform/speech-engine';
import type { ChunkFrame } from '@platform/speech-jobs';
import { metricsRegistry } from '@platform/metrics';
import { longestSilence, playerModel } from '../src/speech/tts/player-model';
import { listenTo } from '../src/speech/tts/stream-listening';

describe('player model: the longest silence a listener hears', () => {
  it('hears none while audio arrives ahead of the playing', () => {
    // 1 s of audio at 0, then 1 s more every 0.5 s: always ahead.
    expect(longestSilence([0, 500, 1000, 1500].map((atMs) => ({ atMs, seconds: 1 })))).toBe(0);
  });

  it('hears the gap when the audio delivered falls behind the wall time since the first audio', () => {
    // 1 s at 0 plays until 1000; the next arrives at 1800: 0.8 s of silence, then it plays until 2300.
    // The third (at 2500) is 0.2 s late.
    expect(
      longestSilence([
        { atMs: 0, seconds: 1 },
        { atMs: 1800, seconds: 0.5 },
        { atMs: 2500, seconds: 1 },
      ]),
    ).toBeCloseTo(0.8, 6);
  });

  it('counts audio arriving exactly as the previous ends as no silence, and empty arrivals as nothing', () => {
    expect(
      longestSilence([
        { atMs: 100, seconds: 0.25 },
        { atMs: 350, seconds: 0.25 },
        { atMs: 5000, seconds: 0 },
      ]),
    ).toBe(0);
  });

  it('counts nothing before the first audio (time to first audio is its own measure)', () => {
    expect(longestSilence([{ atMs: 9000, seconds: 1 }])).toBe(0);
    expect(longestSilence([])).toBe(0);
  });

  it('does not count a wait for text the listener has not sent (rest once the player ran dry)', () => {
    const player = playerModel();
    player.play(0, 1);
    player.rest(1500); // dry since 1000: the client had sent no more text
    player.play(4000, 1);
    expect(player.longestSilenceSeconds).toBe(0);
    // A rest while audio still plays changes nothing: the next audio owed is late.
    player.rest(4500);
    player.play(5600, 1);
    expect(player.longestSilenceSeconds).toBeCloseTo(0.6, 6);
  });
});

describe('stream listening: frames as audio heard', () => {
  const audio = (seq: number, bytes: number): ChunkFrame => ({ seq, type: 'audio', data: Buffer.alloc(bytes) });
  const piece = (seq: number, durationSeconds: number): ChunkFrame => ({
    seq,
    type: 'piece',
    index: seq,
    text: 'x',
    durationSeconds,
  });

  /** A series' value; `sample` names a histogram's `_sum` or `_count`. */
  async function series(name: string, labels: Record<string, string>, sample = name): Promise<number> {
    const metric = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === name);
    // A histogram's samples name their series (`metricName`: `_sum`, `_count`, `_bucket`).
    const values = (metric?.values ?? []) as {
      value: number;
      labels: Record<string, string | number>;
      metricName?: string;
    }[];
    const found = values.find(
      (v) => (v.metricName ?? name) === sample && Object.entries(labels).every(([k, val]) => v.labels[k] === val),
    );
    return Number(found?.value ?? 0);
  }

  it('measures PCM by its bytes: 16-bit samples at the format rate', async () => {
    let t = 0;
    const listening = listenTo('stream', resolveOutputFormat('pcm_22050')!, { now: () => t });
    const heard = listening.job();
    const silence = 'speech_stream_longest_silence_seconds';
    const before = await series('speech_stream_underruns_total', { surface: 'stream' });
    const sumBefore = await series(silence, { surface: 'stream' }, `${silence}_sum`);
    heard(audio(0, 44100)); // 1 s at 0
    t = 1400;
    heard(audio(1, 44100)); // 0.4 s late
    listening.end();
    expect(await series('speech_stream_underruns_total', { surface: 'stream' })).toBe(before + 1);
    expect((await series(silence, { surface: 'stream' }, `${silence}_sum`)) - sumBefore).toBeCloseTo(0.4, 6);
  });

  it('measures MP3 by its pieces, not its bytes; a stream ahead of time is no underrun', async () => {
    let t = 0;
    const before = await series('speech_stream_underruns_total', { surface: 'stream_timestamps' });
    const listening = listenTo('stream_timestamps', resolveOutputFormat('mp3_44100_128')!, { now: () => t });
    const heard = listening.job();
    heard(audio(0, 100_000)); // bytes alone say nothing for MP3
    t = 100;
    heard(piece(1, 2));
    t = 1900;
    heard(piece(2, 2));
    listening.end();
    listening.end(); // once
    expect(await series('speech_stream_underruns_total', { surface: 'stream_timestamps' })).toBe(before);
  });

  it('counts a stream failed after its first audio as cut, and not one that failed before', async () => {
    const reason = 'worker_lost';
    const before = await series('speech_streams_cut_total', { surface: 'websocket', reason });
    const early = listenTo('websocket', resolveOutputFormat('ulaw_8000')!);
    early.failed(reason);
    early.end();
    expect(await series('speech_streams_cut_total', { surface: 'websocket', reason })).toBe(before);
    const late = listenTo('websocket', resolveOutputFormat('ulaw_8000')!);
    late.job()(audio(0, 8000));
    late.failed(reason);
    late.failed('timeout'); // the first reason stands
    late.end();
    expect(await series('speech_streams_cut_total', { surface: 'websocket', reason })).toBe(before + 1);
  });
});
