import type { IncomingMessage } from 'node:http';
import type { ClientDoc } from '../clients/client-model';
import type { ClientAuthMethod } from '../clients/client-auth';
import type { Deps } from '../deps';
import type { Params } from '../oauth/params';
import type { TokenResponse } from '../tokens/issue-tokens';

export interface GrantContext {
  deps: Deps;
  req: IncomingMessage;
  params: Params;
  client: ClientDoc;
  method: ClientAuthMethod;
  /** Thumbprint of the DPoP proof key sent with the request, when one was sent. */
  jkt?: string;
}

export type GrantHandler = (ctx: GrantContext) => Promise<TokenResponse>;

/** Refresh tokens of public clients are bound to their DPoP key (RFC 9449 §5); confidential clients' are bound to the client. */
export function refreshBinding(ctx: GrantContext): { refreshJkt?: string } {
  return ctx.client.type === 'public' && ctx.jkt ? { refreshJkt: ctx.jkt } : {};
}
