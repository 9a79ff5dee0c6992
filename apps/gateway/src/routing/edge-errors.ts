import type { Response } from 'express';
import { openAiError } from '@platform/contracts';
import { GraphQLErrorCode, speechErrorBody, type SpeechErrorStatus } from '@platform/errors';

/**
 * The public interfaces the gateway answers for. Each keeps its own error shape (design notes,
 * "Errors, per interface"), so every rejection the gateway makes itself goes through here.
 */
export type Surface = 'speech' | 'openai' | 'content' | 'graphql' | 'oauth';

export interface EdgeError {
  status: number;
  /** Machine code in the surface's vocabulary where it has one (speech status, GraphQL code). */
  code: EdgeErrorCode;
  message: string;
  headers?: Record<string, string>;
  /** Content REST 400s name the offending property. */
  field?: string;
}

type EdgeErrorCode =
  | 'missing_credentials'
  | 'invalid_api_key'
  | 'invalid_token'
  | 'invalid_request'
  | 'insufficient_scope'
  | 'rate_limited'
  | 'not_found'
  | 'payload_too_large'
  | 'upstream_unavailable'
  | 'upstream_error'
  | 'upstream_timeout'
  /** The gateway is shutting down (503 with Retry-After): another replica takes the retry. */
  | 'shutting_down'
  /** A CORS preflight from an origin not in CORS_ALLOWED_ORIGINS (routing/cors.ts). */
  | 'origin_not_allowed';

function speechStatus(err: EdgeError): SpeechErrorStatus {
  switch (err.code) {
    case 'invalid_api_key':
      return 'invalid_api_key';
    case 'missing_credentials':
    case 'invalid_token':
    case 'insufficient_scope':
      return 'unauthorized';
    case 'rate_limited':
      return 'too_many_requests';
    case 'invalid_request':
    case 'payload_too_large':
    case 'origin_not_allowed':
      return 'bad_request';
    default:
      return 'error';
  }
}

function graphqlCode(err: EdgeError): GraphQLErrorCode {
  switch (err.code) {
    case 'missing_credentials':
    case 'invalid_api_key':
    case 'invalid_token':
      return GraphQLErrorCode.UNAUTHENTICATED;
    case 'insufficient_scope':
    case 'origin_not_allowed':
      return GraphQLErrorCode.FORBIDDEN;
    case 'rate_limited':
      return GraphQLErrorCode.RATE_LIMITED;
    case 'invalid_request':
    case 'payload_too_large':
      return GraphQLErrorCode.BAD_USER_INPUT;
    case 'not_found':
      return GraphQLErrorCode.NOT_FOUND;
    default:
      return GraphQLErrorCode.UPSTREAM_UNAVAILABLE;
  }
}

function contentBody(err: EdgeError): unknown {
  if (err.status === 400) return { errors: { [err.field ?? 'request']: err.message } };
  if (err.status === 403 || err.status === 404) return { error: err.message };
  return { error: { code: err.status, message: err.message } };
}

function oauthBody(err: EdgeError): unknown {
  if (err.status >= 500) return { error: 'temporarily_unavailable', error_description: err.message };
  if (err.code === 'insufficient_scope') return { error: 'insufficient_scope', error_description: err.message };
  if (err.code === 'invalid_request' || err.code === 'payload_too_large' || err.code === 'origin_not_allowed') {
    return { error: 'invalid_request', error_description: err.message };
  }
  return { error: 'invalid_token', error_description: err.message };
}

/** OpenAI's `code` for an edge refusal: the edge's own code, under OpenAI's name where it has one. */
function openAiCode(err: EdgeError): string {
  if (err.code === 'rate_limited') return 'rate_limit_exceeded';
  if (err.code === 'missing_credentials') return 'missing_api_key';
  return err.code;
}

export function edgeErrorBody(surface: Surface, err: EdgeError): unknown {
  switch (surface) {
    case 'speech':
      return speechErrorBody(speechStatus(err), err.message);
    case 'openai':
      return openAiError(err.status, err.message, openAiCode(err), err.field ?? null);
    case 'graphql':
      return { errors: [{ message: err.message, extensions: { code: graphqlCode(err) } }] };
    case 'content':
      return contentBody(err);
    case 'oauth':
      return oauthBody(err);
  }
}

export function sendEdgeError(res: Response, surface: Surface, err: EdgeError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  res.status(err.status).json(edgeErrorBody(surface, err));
}
