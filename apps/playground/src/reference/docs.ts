import SwaggerUI from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import StandalonePreset from 'swagger-ui-dist/swagger-ui-standalone-preset.js';

/** The page's settings from the gateway (`/docs/config.json`): the OAuth client "Authorize" signs in as. */
interface DocsConfig {
  client_id: string | null;
}

/**
 * The OpenAPI 3.1 documents the gateway publishes, rendered by Swagger UI (bundled into our own asset,
 * nothing loaded from elsewhere). The online validator badge is off: it would send the document to
 * validator.swagger.io. "Try it out" calls this gateway, the documents' server. "Authorize" signs in
 * with the authorization code flow and PKCE as the platform's public API-reference client, in a pop-up
 * that comes back to swagger-ui-dist's redirect page under /docs (the client's one redirect URI).
 */
const config = (await (await fetch('/docs/config.json')).json()) as DocsConfig;
const ui = SwaggerUI({
  dom_id: '#reference',
  urls: [
    { url: '/openapi/speech.json', name: 'Speech API' },
    { url: '/openapi/content.json', name: 'Content API' },
    { url: '/openapi/auth.json', name: 'Auth API (OAuth 2.0 / OpenID Connect)' },
  ],
  'urls.primaryName': new URLSearchParams(location.search).get('api') ?? 'Speech API',
  presets: [SwaggerUI.presets.apis, StandalonePreset],
  layout: 'StandaloneLayout',
  validatorUrl: null,
  deepLinking: true,
  persistAuthorization: false,
  tryItOutEnabled: false,
  oauth2RedirectUrl: `${location.origin}/docs/oauth2-redirect.html`,
});
if (config.client_id) ui.initOAuth({ clientId: config.client_id, usePkceWithAuthorizationCodeGrant: true });
