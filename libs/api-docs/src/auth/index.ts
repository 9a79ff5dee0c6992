import { GRANT_FORMS } from '@platform/oauth-grants';
import type { ApiDocument } from '../document';
import { adminBodySchemas } from './admin-bodies';
import { adminSchemas } from './admin-schemas';
import { oauthErrorResponses, oauthErrorSchemas } from './errors';
import { grantFormSchemas } from './grant-forms';
import { adminPaths } from './paths/admin';
import { discoveryPaths } from './paths/discovery';
import { oauthPaths } from './paths/oauth';
import { pagePaths } from './paths/pages';
import { registrationPaths } from './paths/registration';
import { registrationSchemas } from './registration-schemas';
import { oauthSchemas } from './schemas';
import { authSecuritySchemes } from './security';

/** OpenAPI 3.1 description of the authorization server as the gateway serves it (apps/auth; docs/auth.md). */
export function authOpenApi(): ApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Auth API',
      version: '1.0.0',
      description:
        'The platform’s OAuth 2.0 authorization server (RFC 6749) and OpenID Provider (OpenID Connect Core 1.0), at the gateway’s origin, which is the issuer. ' +
        `Grants: ${GRANT_FORMS.map((form) => form.title).join(', ')}. ` +
        'Tokens may be sender-constrained with DPoP (RFC 9449) and aimed at an API with resource indicators (RFC 8707). Authorization requests may be pushed (RFC 9126) and signed (RFC 9101); clients may register themselves (RFC 7591, RFC 7592). Errors are `{error, error_description}` (RFC 6749 §5.2).',
    },
    servers: [{ url: '/', description: 'The gateway that serves this document.' }],
    tags: [
      {
        name: 'OAuth 2.0',
        description:
          'Tokens, revocation (RFC 7009), introspection (RFC 7662, RFC 9701), device authorization (RFC 8628), pushed authorization requests (RFC 9126).',
      },
      { name: 'Discovery', description: 'Metadata (RFC 8414, OpenID Connect Discovery 1.0) and keys.' },
      { name: 'OpenID Connect' },
      { name: 'Pages', description: 'What a person sees in a browser.' },
      { name: 'Registration', description: 'Dynamic client registration (RFC 7591) and management (RFC 7592).' },
      {
        name: 'Administration',
        description: 'Clients, accounts, signing keys, initial access tokens and the audit log.',
      },
    ],
    paths: { ...oauthPaths, ...discoveryPaths, ...pagePaths, ...registrationPaths, ...adminPaths },
    components: {
      schemas: {
        ...oauthSchemas,
        ...grantFormSchemas,
        ...oauthErrorSchemas,
        ...adminBodySchemas,
        ...adminSchemas,
        ...registrationSchemas,
      },
      responses: oauthErrorResponses,
      securitySchemes: authSecuritySchemes,
    },
  };
}
