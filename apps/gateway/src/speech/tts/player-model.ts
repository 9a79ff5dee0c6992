/**
 * What a listener hears of a stream: a player that starts at the first audio and plays everything
 * it is handed back to back, at real time, with no buffer beyond that. It runs dry (an underrun)
 * when the wall time since the first audio passes the audio handed over so far; the silence lasts
 * until the next audio arrives. The gateway feeds it as it relays frames (stream-metrics.ts), so
 * a stream the client received in full with HTTP 200 still shows every pause it heard.
 */
interface PlayerModel {
  /** `seconds` of audio handed to the client at `atMs` (wall clock, ms). */
  play(atMs: number, seconds: number): void;
  /**
   * The listener is waiting for something the stream does not owe yet (a stream-input client has
   * not sent the next text): if the player has run dry by `atMs`, it starts again at the next
   * audio, and the wait is not counted as silence.
   */
  rest(atMs: number): void;
  /** True once audio was handed over. */
  readonly started: boolean;
  /** The longest silence heard after the first audio so far, in seconds (0: none). */
  readonly longestSilenceSeconds: number;
}

export function playerModel(): PlayerModel {
  /** When the audio handed over so far finishes playing (ms); null before the first audio or after a rest. */
  let playsUntil: number | null = null;
  let started = false;
  let longest = 0;
  return {
    play(atMs, seconds) {
      if (seconds <= 0) return;
      if (playsUntil === null) {
        playsUntil = atMs;
      } else if (atMs > playsUntil) {
        longest = Math.max(longest, (atMs - playsUntil) / 1000);
        playsUntil = atMs;
      }
      playsUntil += seconds * 1000;
      started = true;
    },
    rest(atMs) {
      if (playsUntil !== null && atMs >= playsUntil) playsUntil = null;
    },
    get started() {
      return started;
    },
    get longestSilenceSeconds() {
      return longest;
    },
  };
}

/** Audio arriving: when (ms) and how many seconds of it. */
interface Arrival {
  atMs: number;
  seconds: number;
}

/** The longest silence a listener hears (seconds) for audio arriving as `arrivals` (in time order). */
export function longestSilence(arrivals: readonly Arrival[]): number {
  const player = playerModel();
  for (const a of arrivals) player.play(a.atMs, a.seconds);
  return player.longestSilenceSeconds;
}
