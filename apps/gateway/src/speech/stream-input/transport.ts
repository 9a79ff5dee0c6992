import type { DrainOutcome } from '../tts/backpressure';

/**
 * What a stream-input session needs of its connection. The WebSocket adapter (stream-input.ts)
 * binds it to a real socket; tests hand in a fake one.
 */
export interface SessionTransport {
  /** True while messages can still be sent. */
  readonly open: boolean;
  /** Bytes sent but not yet taken by the client. */
  readonly bufferedAmount: number;
  sendText(text: string): void;
  sendBinary(data: Buffer): void;
  close(code: number, reason: string): void;
  /** Waits until the client has taken what is buffered, went away, or took nothing for `stallTimeoutMs`. */
  drained(signal: AbortSignal, stallTimeoutMs: number): Promise<DrainOutcome>;
}
