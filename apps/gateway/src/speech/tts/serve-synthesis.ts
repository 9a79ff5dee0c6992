import type { Request, Response } from 'express';
import type { SpeechError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { Model } from '@platform/speech-engine';
import type { SpeechHooks } from '@platform/speech-jobs';
import type { StreamSurface } from '../../metrics/stream-metrics';
import { requestCaller } from '../caller';
import type { HttpSinkOptions } from './http-sinks';
import type { JobRunner } from './job-runner';
import type { TtsRequest } from './parse-request';
import { relayJob, type AudioSink } from './relay-job';
import { pipelineError, prepareJob, type PreparedJob } from './synthesis';
import { listenTo, type StreamListening } from './stream-listening';

export interface TtsDeps {
  runner: JobRunner;
  hooks: SpeechHooks;
  catalogue: readonly Model[];
  maxTextChars: number;
  /** A client that takes no bytes for this long is given up on (`SPEECH_WRITE_STALL_TIMEOUT_MS`). */
  writeStallTimeoutMs: number;
  logger: Logger;
}

/** What an endpoint reads from its request: the voice and the request as the pipeline takes it. */
export interface SynthesisRead {
  voiceId: string;
  request: TtsRequest;
}

/**
 * One synthesis endpoint over HTTP: how it reads its request (the speech API's routes, OpenAI's
 * `/v1/audio/speech`), where the audio goes (the sink) and in which shape its errors are answered.
 * `surface`: a stream played as it arrives, whose listener's silences are measured (`listenTo`).
 */
export interface SynthesisEndpoint<Read extends SynthesisRead = SynthesisRead> {
  kind: PreparedJob['input']['kind'];
  read(req: Request): Read;
  /** The sink for the request as `read` read it. */
  sinkFor(o: HttpSinkOptions, read: Read): AudioSink;
  timestamps?: boolean;
  surface?: StreamSurface;
  sendError(res: Response, err: SpeechError): void;
}

/** Aborts when the client goes away before the response is complete. */
function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * The handler of a synthesis endpoint: the caller, its request, one job enqueued (plans, quotas,
 * history and charging: `prepareJob`) and its frames relayed to the sink (`relayJob`).
 */
export function serveSynthesis<Read extends SynthesisRead>(deps: TtsDeps, endpoint: SynthesisEndpoint<Read>) {
  return async (req: Request, res: Response): Promise<void> => {
    const signal = clientGone(res);
    let listening: StreamListening | undefined;
    try {
      const caller = requestCaller(req, 'speech:write');
      const read = endpoint.read(req);
      const { voiceId, request } = read;
      const prepared = await prepareJob(deps, caller, voiceId, request, endpoint.kind);
      const timestamps = endpoint.timestamps ?? false;
      const job = timestamps ? { ...prepared, input: { ...prepared.input, timestamps } } : prepared;
      const sink = endpoint.sinkFor(
        {
          res,
          job,
          format: request.format,
          signal,
          writeStallTimeoutMs: deps.writeStallTimeoutMs,
          logger: deps.logger,
        },
        read,
      );
      // The timestamped stream's audio goes out in each piece's line: credited a piece at a time.
      listening = endpoint.surface && listenTo(endpoint.surface, request.format, { perPiece: timestamps });
      if ((await relayJob(deps.runner, job, signal, sink, listening)) !== 'delivered' && !res.destroyed) res.destroy();
    } catch (err) {
      endpoint.sendError(res, pipelineError(err));
    } finally {
      listening?.end();
    }
  };
}
