import SwaggerUI from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import StandalonePreset from 'swagger-ui-dist/swagger-ui-standalone-preset.js';

/**
 * The OpenAPI 3.1 documents the gateway publishes, rendered by Swagger UI (bundled into our own asset,
 * nothing loaded from elsewhere). The online validator badge is off: it would send the document to
 * validator.swagger.io. "Try it out" calls this gateway, the documents' server.
 */
SwaggerUI({
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
});
