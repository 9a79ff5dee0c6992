import type { EngineVoiceParams, PronunciationRule, VoiceSettings } from '@platform/speech-engine';

/** What the gateway hands the worker (BullMQ job data, queue `synthesis`). Version 1. */
export interface SynthesisJobData {
  v: 1;
  /** Also the BullMQ job id and the history item id: one id follows the request everywhere. */
  jobId: string;
  /** Key prefix for the audio stream and cancel key (see naming.ts). */
  keyPrefix: string;
  accountId?: string;
  voice: {
    voiceId: string;
    name: string;
    category: 'premade' | 'cloned';
    engine: EngineVoiceParams;
    /**
     * `engine` already has `settings.similarity_boost` applied (cloned voices, by the gateway);
     * the worker then renders it without scaling the character again (`RenderOptions`).
     */
    similarityApplied?: boolean;
  };
  modelId: string;
  /** Canonical language tag when the request chose one; its eSpeak voice replaces the voice's. */
  language?: { id: string; espeak: string };
  text: string;
  /** Pre-split pieces (WebSocket segments); otherwise the worker splits at sentences. */
  pieces?: string[];
  settings: VoiceSettings;
  /**
   * The rules of the request's pronunciation dictionaries (`pronunciation_dictionary_locators`),
   * resolved by the gateway in locator order; the worker applies them to each piece. Absent: none.
   */
  pronunciation?: PronunciationRule[];
  /**
   * The request's `seed`: the same request gives the same audio. eSpeak NG is deterministic anyway;
   * the neural model then samples without noise. Absent from gateways that predate it.
   */
  seed?: number;
  outputFormat: string;
  /** Who waits: a whole-file response, a streamed response, or a WebSocket segment. */
  kind: 'convert' | 'stream' | 'websocket';
  /**
   * Report the characters' timing: each piece frame carries `alignment` and `normalizedAlignment`
   * (the `with-timestamps` routes). Absent in jobs from gateways that predate it: no timing.
   */
  timestamps?: boolean;
  /** Whether the finished audio becomes a history item (WebSocket segments do not, see docs). */
  recordHistory: boolean;
  createdAt: number;
  /** After this the gateway has given up; the worker drops the job unstarted. */
  deadlineAt: number;
  /**
   * W3C Trace Context (`traceparent`, `tracestate`) of the gateway's span for this job, so the
   * worker's span joins the request's trace. Absent when the gateway does not trace.
   */
  trace?: Record<string, string>;
}
