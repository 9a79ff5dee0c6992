// swagger-ui-dist ships no types; the page uses only its constructor and presets.
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
  }
  interface SwaggerUIStatic {
    (options: SwaggerUIOptions): unknown;
    presets: { apis: unknown };
  }
  const SwaggerUI: SwaggerUIStatic;
  export default SwaggerUI;
}
declare module 'swagger-ui-dist/swagger-ui-standalone-preset.js' {
  const StandalonePreset: unknown;
  export default StandalonePreset;
}
