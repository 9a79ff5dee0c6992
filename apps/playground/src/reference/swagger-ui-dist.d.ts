// swagger-ui-dist ships no types; the page uses only its constructor, presets and initOAuth.
declare module 'swagger-ui-dist/swagger-ui-es-bundle.js' {
  interface SwaggerUIOptions {
    dom_id: string;
    urls: { url: string; name: string }[];
    'urls.primaryName'?: string;
    presets: unknown[];
    layout: string;
    validatorUrl: null;
    deepLinking?: boolean;
    persistAuthorization?: boolean;
    tryItOutEnabled?: boolean;
    oauth2RedirectUrl?: string;
  }
  /** The OAuth2 settings of "Authorize" (no secret: a public client with PKCE). */
  interface SwaggerUIOAuthOptions {
    clientId: string;
    usePkceWithAuthorizationCodeGrant: boolean;
  }
  interface SwaggerUIInstance {
    initOAuth(options: SwaggerUIOAuthOptions): void;
  }
  interface SwaggerUIStatic {
    (options: SwaggerUIOptions): SwaggerUIInstance;
    presets: { apis: unknown };
  }
  const SwaggerUI: SwaggerUIStatic;
  export default SwaggerUI;
}
declare module 'swagger-ui-dist/swagger-ui-standalone-preset.js' {
  const StandalonePreset: unknown;
  export default StandalonePreset;
}
