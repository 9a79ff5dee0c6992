import { Schema, type Connection, type Model } from 'mongoose';
import { INTROSPECTION_SIGNING_ALGS, SECURITY_PROFILES } from '@platform/contracts';
import type { Sealed } from '../crypto/secrets';
import type { GrantType } from '../grants';

// The closed lists of a registration are the auth contract's (libs/contracts/src/auth).
type IntrospectionSigningAlg = (typeof INTROSPECTION_SIGNING_ALGS)[number];
type SecurityProfile = (typeof SECURITY_PROFILES)[number];

export interface ClientDoc {
  _id: string; // client_id
  name: string;
  type: 'confidential' | 'public';
  grantTypes: GrantType[];
  redirectUris: string[];
  /**
   * OpenID Connect RP-Initiated Logout 1.0: where /logout may send the browser back to after signing
   * out (`post_logout_redirect_uri`, exact match). Missing on clients registered before: none.
   */
  postLogoutRedirectUris?: string[];
  /**
   * OpenID Connect Back-Channel Logout 1.0 §2.2: where logout tokens are POSTed when a session this
   * client had ends (backchannel-logout/). Unset: the client is not told.
   */
  backchannelLogoutUri?: string | null;
  /** §2.2 `backchannel_logout_session_required`: the client needs `sid` in logout and ID tokens (always sent here). */
  backchannelLogoutSessionRequired?: boolean;
  /** Scopes the client may ask for. */
  scopes: string[];
  /** Resource indicators (RFC 8707) the client may ask for; its tokens' `aud` values. */
  resources: string[];
  /** SHA-256 of the secret, for client_secret_basic/post. */
  secretHash?: string | null;
  /** The secret sealed with a key derived from INTERNAL_SECRET: client_secret_jwt needs the HMAC key itself. */
  secretSealed?: Sealed | null;
  /** Public keys for private_key_jwt. */
  jwks?: { keys: Record<string, unknown>[] } | null;
  /** Where the client publishes its public keys instead of `jwks` (RFC 7591 §2); fetched by clients/client-keys.ts. */
  jwksUri?: string | null;
  /** RFC 9101 / OpenID Connect Registration: the one algorithm its request objects must be signed with; none: any of REQUEST_OBJECT_SIGNING_ALGS. */
  requestObjectSigningAlg?: string | null;
  /** RFC 9126 §6: its authorization requests must come through /par. */
  requirePushedAuthorizationRequests?: boolean;
  /** RFC 9101 §10.5: its authorization requests must be signed request objects. */
  requireSignedRequestObject?: boolean;
  /**
   * Token exchange policy (RFC 8693 §5): besides tokens issued to itself, the clients whose access
   * tokens this client may present as `subject_token` or `actor_token`. None: only its own.
   */
  tokenExchange?: { allowedClients: string[] } | null;
  /** RFC 9701 `introspection_signed_response_alg`: the JWS alg of this client's JWT introspection answers. Unset: ES256. */
  introspectionSignedResponseAlg?: IntrospectionSigningAlg | null;
  /**
   * OpenID Connect Registration §2 `token_endpoint_auth_signing_alg`: the one JWS alg its client assertions
   * (private_key_jwt, client_secret_jwt) may use, at every endpoint that authenticates it. Set by dynamic
   * registration (registration/); unset: any alg of the method's family.
   */
  tokenEndpointAuthSigningAlg?: string | null;
  /** A security profile the client is held to (`fapi2`: FAPI 2.0 Security Profile, fapi/fapi2-profile.ts). Unset: none. */
  securityProfile?: SecurityProfile | null;
  createdAt: Date;
}

const schema = new Schema<ClientDoc>(
  {
    _id: String,
    name: String,
    type: String,
    grantTypes: [String],
    redirectUris: [String],
    postLogoutRedirectUris: { type: [String], default: [] },
    backchannelLogoutUri: { type: String, default: null },
    backchannelLogoutSessionRequired: { type: Boolean, default: false },
    scopes: [String],
    resources: [String],
    secretHash: { type: String, default: null },
    secretSealed: { type: Schema.Types.Mixed, default: null },
    jwks: { type: Schema.Types.Mixed, default: null },
    jwksUri: { type: String, default: null },
    requestObjectSigningAlg: { type: String, default: null },
    requirePushedAuthorizationRequests: { type: Boolean, default: false },
    requireSignedRequestObject: { type: Boolean, default: false },
    tokenExchange: { type: Schema.Types.Mixed, default: null },
    introspectionSignedResponseAlg: { type: String, default: null },
    securityProfile: { type: String, default: null },
    tokenEndpointAuthSigningAlg: { type: String, default: null },
  },
  { collection: 'clients', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);

export function clientModel(conn: Connection): Model<ClientDoc> {
  return (conn.models.Client as Model<ClientDoc> | undefined) ?? conn.model<ClientDoc>('Client', schema);
}
