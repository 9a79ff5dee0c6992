import { text } from '@platform/oauth-grants';

/**
 * The parameters of a sign-out request (OpenID Connect RP-Initiated Logout 1.0 §2): `/logout`'s query, and its
 * confirmation form's fields beside the page's CSRF token. Each is given at most once and bounded; what they
 * must match (an ID token issued here, a registered redirect URI) auth checks after.
 */
export const endSessionRequest = {
  id_token_hint: text(8192, 'An ID token this server issued.').optional(),
  client_id: text(128, 'The client.').optional(),
  post_logout_redirect_uri: text(2000, 'Registered for the client.').meta({ format: 'uri' }).optional(),
  state: text(1000, 'Returned unchanged.').optional(),
};
