import type { IncomingMessage } from 'node:http';
import type { GrantForm } from '@platform/oauth-grants';
import type { ClientDoc } from '../clients/client-model';
import type { ClientAuthMethod } from '../clients/client-auth';
import type { Deps } from '../deps';
import type { Params } from '../oauth/params';
import type { IdTokenInput } from '../oidc/id-token';
import type { IssuedTokenSet, TokenResponse, TokenSetInput } from '../tokens/issue-tokens';

/** What a grant may issue beside its access token. */
interface GrantIssues {
  /**
   * `never`; `new-family`: a refresh token starting a new family when the client's registration lists
   * `refresh_token` (RFC 6749 §1.5); `rotation`: the next token of the presented token's family.
   */
  refreshToken: 'never' | 'new-family' | 'rotation';
  /** An ID token when `openid` is granted (OpenID Connect Core 1.0 §3.1.3.3 and §12.2). */
  idToken: boolean;
}

/** How a grant signs what it issues: the token route hands in the real signers, unit tests fakes. */
export interface GrantTokens {
  issue(input: TokenSetInput): Promise<IssuedTokenSet>;
  idToken(input: IdTokenInput): Promise<string>;
}

export interface GrantContext {
  deps: Deps;
  req: IncomingMessage;
  params: Params;
  client: ClientDoc;
  method: ClientAuthMethod;
  /** Thumbprint of the DPoP proof key sent with the request, when one was sent. */
  jkt?: string;
  /** The descriptor's `issues`, read by the shared steps (grant-steps.ts). */
  issues: GrantIssues;
  tokens: GrantTokens;
}

export type GrantHandler = (ctx: GrantContext) => Promise<TokenResponse>;

/**
 * One grant of the token endpoint (RFC 6749 §4 and its extensions), the unit the registry
 * (grants/index.ts) lists: /token dispatches on `type`, client registrations and the metadata
 * documents list the types, and the shared checks below run before `handler`.
 */
export interface GrantDescriptor<T extends string = string> {
  /** The `grant_type` value: its form's. */
  type: T;
  /** Its parameters, as the auth API document describes them (libs/oauth-grants). */
  form: GrantForm<T>;
  handler: GrantHandler;
  /**
   * Which authenticated clients may use it once their registration lists it: `any`, or only
   * `confidential` ones (`unauthorized_client` otherwise, RFC 6749 §5.2).
   */
  clients: 'any' | 'confidential';
  /**
   * Set when the grant may come without any client authentication (RFC 7523 §3.1): the stand-in
   * client such a request is handled as.
   */
  unauthenticatedClient?: (deps: Deps) => ClientDoc;
  issues: GrantIssues;
}

/** A grant of its form, whose literal `type` it keeps (the registry checks it has one grant per form). */
export function defineGrant<const T extends string>(descriptor: Omit<GrantDescriptor<T>, 'type'>): GrantDescriptor<T> {
  return { ...descriptor, type: descriptor.form.type };
}
