import { authorizationRequest, endSessionRequest } from '@platform/contracts';
import { requiredParameters } from '@platform/oauth-grants';
import { schemaRef, type JsonObject } from '../../speech/json-helpers';
import { formProperties } from '../grant-forms';

const html: JsonObject = { 'text/html': { schema: { type: 'string' } } };
const location: JsonObject = { Location: { schema: { type: 'string' }, description: 'Where the browser goes next.' } };
/** Express's short note beside a redirect, in the media type the request's Accept prefers. */
const seeOther: JsonObject = { 'text/plain': { schema: { type: 'string' } }, ...html };
const oauthOrHtml: JsonObject = { ...html, 'application/json': { schema: schemaRef('OAuthError') } };

/** What a page answers: HTML (never cached, never framed), a 303 to the next step, or an error page. */
const pageAnswers = (ok: string, redirect?: string): JsonObject => ({
  '200': { description: ok, content: html },
  ...(redirect ? { '303': { description: redirect, headers: location, content: seeOther } } : {}),
  '4XX': { description: 'An error page, or an OAuth error for a body that could not be read.', content: oauthOrHtml },
  '5XX': {
    description: 'An OAuth error (`server_error`, `temporarily_unavailable`).',
    content: { 'application/json': { schema: schemaRef('OAuthError') } },
  },
});
const query = (name: string, description: string, required = false): JsonObject => ({
  name,
  in: 'query',
  required,
  description,
  schema: { type: 'string' },
});
/** A form's parameters as a page's query, from its contract (a repeatable one is repeated: `resource=…&resource=…`). */
const queryOf = (parameters: typeof authorizationRequest | typeof endSessionRequest): JsonObject[] => {
  const required = requiredParameters(parameters);
  return Object.entries(formProperties(parameters)).map(([name, property]) => {
    const { description, ...schema } = property as JsonObject;
    return { name, in: 'query', required: required.includes(name), ...(description ? { description } : {}), schema };
  });
};
/**
 * A request object sent in `/authorize`'s URL is bounded by the URL, not by its form: the server takes at most
 * 16 KiB of request line and headers together (Node's limit, answered 431 past it), so the document promises
 * 8 KiB there; a larger one goes by `/par` (the form's 16 KiB).
 */
const URL_REQUEST_OBJECT = 8192;
const inUrl = (parameter: JsonObject): JsonObject =>
  parameter.name === 'request'
    ? {
        ...parameter,
        description: `${String(parameter.description)} In the URL at most ${URL_REQUEST_OBJECT} characters; a larger one by \`/par\`.`,
        schema: { ...(parameter.schema as JsonObject), maxLength: URL_REQUEST_OBJECT },
      }
    : parameter;
const form = (properties: JsonObject, required: string[]): JsonObject => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required, properties } } },
});
const text = { type: 'string' };
const csrf = { type: 'string', description: 'The form’s anti-forgery token (bound to the browser’s cookie).' };
const page = (operationId: string, summary: string, rest: JsonObject): JsonObject => ({
  tags: ['Pages'],
  operationId,
  summary,
  security: [],
  ...rest,
});

/**
 * The pages a person sees in a browser (apps/auth/src/pages): HTML forms without JavaScript, served at
 * the gateway's origin. Listed so integrators know what the authorization code and device flows show.
 */
export const pagePaths: JsonObject = {
  '/authorize': {
    get: page('authorize', 'Authorization request (RFC 6749 §4.1.1, OpenID Connect Core 1.0 §3.1.2.1)', {
      description:
        'Only `response_type=code` with PKCE `S256`. Sends the browser to sign in and consent, then back to `redirect_uri` with `code`, `state` and `iss` (RFC 9207), or with an `error`. `prompt=none` never shows a page.',
      parameters: queryOf(authorizationRequest).map(inUrl),
      responses: pageAnswers(
        'An error page for a request that cannot be sent back to the client.',
        'To sign-in, consent, or back to the client’s redirect_uri.',
      ),
    }),
  },
  '/authorize/continue': {
    get: page('authorizeContinue', 'The consent page of a pending authorization request', {
      parameters: [query('request', 'The pending request’s id.', true)],
      responses: pageAnswers('The consent page.', 'To sign-in, or back to the client.'),
    }),
  },
  '/authorize/decision': {
    post: page('authorizeDecision', 'The person approves or denies', {
      requestBody: form({ request: text, decision: { type: 'string', enum: ['approve', 'deny'] }, csrf }, [
        'request',
        'decision',
        'csrf',
      ]),
      responses: pageAnswers(
        'An error page.',
        'Back to the client’s redirect_uri with `code` or `error=access_denied`.',
      ),
    }),
  },
  '/login': {
    get: page('loginPage', 'The sign-in page', {
      parameters: [query('return_to', 'A path of this server to go back to.')],
      responses: pageAnswers('The sign-in form.'),
    }),
    post: page('login', 'Sign in with email and password', {
      description: 'The sign-in limits apply (docs/auth.md, "Sign-in limits").',
      requestBody: form({ email: text, password: text, csrf, return_to: text }, ['email', 'password', 'csrf']),
      responses: pageAnswers('The form again, with the error.', 'Signed in: to `return_to`.'),
    }),
  },
  '/logout': {
    get: page('logoutPage', 'RP-Initiated Logout 1.0: the confirmation page', {
      parameters: queryOf(endSessionRequest),
      responses: pageAnswers('The confirmation page.', 'To the post_logout_redirect_uri.'),
    }),
    post: page('logout', 'RP-Initiated Logout 1.0: sign out', {
      requestBody: form({ csrf, ...formProperties(endSessionRequest) }, []),
      responses: pageAnswers('Signed out, or the confirmation page.', 'Signed out: to the post_logout_redirect_uri.'),
    }),
  },
  '/device': {
    get: page('devicePage', 'Device authorization (RFC 8628 §3.3): the code entry page', {
      parameters: [query('user_code', 'Pre-filled from verification_uri_complete.')],
      responses: pageAnswers('The code entry page.', 'To sign-in first.'),
    }),
    post: page('deviceCode', 'Enter the code shown on the device', {
      requestBody: form({ user_code: text, csrf }, ['user_code', 'csrf']),
      responses: pageAnswers('The approval page, or the form with the error.', 'To sign-in first.'),
    }),
  },
  '/device/decision': {
    post: page('deviceDecision', 'Approve or deny the device', {
      requestBody: form({ user_code: text, decision: { type: 'string', enum: ['approve', 'deny'] }, csrf }, [
        'user_code',
        'decision',
        'csrf',
      ]),
      responses: pageAnswers('Done: the device may now poll for its token (or is refused).', 'To sign-in first.'),
    }),
  },
};
