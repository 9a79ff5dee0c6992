import type { IncomingHttpHeaders } from 'node:http';
import { inactivityTimeoutParam } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import { followsLanguage, resolveModel, type Model } from '@platform/speech-engine';
import { responseShape, SHAPE_PARAMETER } from '../response-shape';
import { readSpeechInput } from '../speech-input';
import { checkFormat, checkLanguage, checkVoiceId, type TtsRequest } from '../tts/parse-request';
import { parseRequestOptions } from '../tts/request-options';

/**
 * What the connection's URL asks for: `/v1/text-to-speech/{voice_id | model_id}/stream-input?…` (its
 * query's contract is `streamInputQuery`; each parameter is read with its own, in this order).
 */
export interface OpenRequest {
  /** The voice from the path or `voice_id`; null: the first message must name it. */
  voiceId: string | null;
  /** Everything of the synthesis request but the text and the settings (the first message's). */
  request: Omit<TtsRequest, 'text' | 'rawSettings'>;
  /** The hosted API's JSON messages (base64 audio) instead of binary frames: its shape (`responseShape`) or `message_format=json`. */
  json: boolean;
  /** Character alignment with each JSON audio message. */
  alignment: boolean;
  /** `inactivity_timeout` in milliseconds; null: the gateway's default. */
  idleMs: number | null;
}

/** Reads the query, the path segment and the upgrade's headers; throws the speech error the client is told before closing. */
export function readOpenRequest(
  q: URLSearchParams,
  segment: string,
  catalogue: readonly Model[],
  headers: IncomingHttpHeaders,
  maxChars: number,
): OpenRequest {
  const format = checkFormat(q.get('output_format') ?? undefined);
  const language = checkLanguage(q.get('language_code') ?? undefined);
  const bySegment = resolveModel(segment, catalogue);
  let model = bySegment;
  let modelId: string | undefined = segment;
  if (model === null) {
    checkVoiceId(segment);
    modelId = q.get('model_id') ?? undefined;
    model = resolveModel(modelId, catalogue);
    if (!model)
      throw new SpeechError(
        400,
        'model_not_found',
        `model ${JSON.stringify(q.get('model_id'))} does not exist; see GET /v1/models`,
      );
  }
  const timeout = readSpeechInput(inactivityTimeoutParam, q.get('inactivity_timeout') ?? undefined);
  const idleMs = timeout !== undefined ? timeout * 1000 : null;
  const json = responseShape(q.get(SHAPE_PARAMETER), headers) === 'hosted' || q.get('message_format') === 'json';
  return {
    voiceId: bySegment ? q.get('voice_id') : segment,
    // The hosted API takes these in the query string of its WebSocket.
    request: {
      model,
      modelFollowsLanguage: followsLanguage(modelId),
      format,
      language,
      options: parseRequestOptions({}, Object.fromEntries(q), maxChars),
    },
    json,
    alignment: q.get('sync_alignment') === 'true' || json,
    idleMs,
  };
}

/** The API key of the upgrade: the `xi-api-key` header, else the `xi_api_key` or `authorization` query parameter. */
export function upgradeKey(q: URLSearchParams, header: string | string[] | undefined): string | null {
  return typeof header === 'string' ? header : (q.get('xi_api_key') ?? q.get('authorization'));
}
