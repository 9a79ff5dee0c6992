import type { IncomingMessage } from 'node:http';
import type { GrantForm, GrantFormValues, GrantParameters } from '@platform/oauth-grants';
import type { ClientDoc } from '../clients/client-model';
import type { ClientAuthMethod } from '@platform/contracts';
import type { Deps } from '../deps';
import { formParams, type Params } from '../oauth/params';
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
  /** The request's form as sent (client authentication included); the grant reads its own parameters parsed. */
  params: Params;
  client: ClientDoc;
  method: ClientAuthMethod;
  /** Thumbprint of the DPoP proof key sent with the request, when one was sent. */
  jkt?: string;
  /** The descriptor's `issues`, read by the shared steps (grant-steps.ts). */
  issues: GrantIssues;
  tokens: GrantTokens;
}

/** A grant's work, given its form's parameters parsed (libs/oauth-grants: what the API document describes). */
export type GrantHandler<F extends GrantForm = GrantForm> = (
  ctx: GrantContext,
  form: GrantFormValues<F>,
) => Promise<TokenResponse>;

/**
 * One grant of the token endpoint (RFC 6749 §4 and its extensions), the unit the registry
 * (grants/index.ts) lists: /token dispatches on `type`, client registrations and the metadata
 * documents list the types, and the shared checks below run before `handler`.
 */
export interface GrantDescriptor<T extends string = string> {
  /** The `grant_type` value: its form's. */
  type: T;
  /** Its parameters: what `handler` parses the request with, and what the auth API document describes (libs/oauth-grants). */
  form: GrantForm<T>;
  /** Parses the form's parameters (`invalid_request` on the first problem), then does the grant's work. */
  handler: (ctx: GrantContext) => Promise<TokenResponse>;
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

/**
 * A grant of its form, whose literal `type` it keeps (the registry checks it has one grant per form). Its
 * handler is given the form's parameters parsed: they are checked after the client's authentication and
 * permission, as RFC 6749 §5.2 orders the errors.
 */
export function defineGrant<const T extends string, P extends GrantParameters>(
  descriptor: Omit<GrantDescriptor<T>, 'type' | 'form' | 'handler'> & {
    form: GrantForm<T, P>;
    handler: GrantHandler<GrantForm<T, P>>;
  },
): GrantDescriptor<T> {
  const { form, handler } = descriptor;
  return {
    ...descriptor,
    type: form.type,
    handler: async (ctx) => handler(ctx, formParams(form.parameters, ctx.params)),
  };
}
