/**
 * What a listener hears of a stream, measured at the client: a player that starts at the first
 * audio and plays it back to back at the format's real-time rate. It runs dry when the audio
 * arrived so far has been played; the silence lasts until the next audio arrives.
 */
export interface Listener {
  /** `bytes` of audio arrived now. */
  heard(bytes: number): void;
  /** The longest silence after the first audio so far (seconds). */
  readonly longestSilenceSeconds: number;
  /** The longest silence that was still going on at or after `atMs` (`performance.now()` time; seconds). */
  longestSilenceEndingAfter(atMs: number): number;
}

export function listener(bytesPerSecond: number): Listener {
  let playsUntil: number | null = null;
  let longest = 0;
  const silences: { endMs: number; seconds: number }[] = [];
  return {
    heard(bytes) {
      const now = performance.now();
      if (bytes <= 0) return;
      if (playsUntil !== null && now > playsUntil) {
        longest = Math.max(longest, (now - playsUntil) / 1000);
        silences.push({ endMs: now, seconds: (now - playsUntil) / 1000 });
      }
      playsUntil = Math.max(playsUntil ?? now, now) + (bytes / bytesPerSecond) * 1000;
    },
    get longestSilenceSeconds() {
      return longest;
    },
    longestSilenceEndingAfter(atMs) {
      return silences.reduce((max, s) => (s.endMs >= atMs ? Math.max(max, s.seconds) : max), 0);
    },
  };
}
