import type { ClientDoc } from '../clients/client-model';

/**
 * Who may learn about a token at /introspect (RFC 7662 §4: the server decides, and answers
 * `{active:false}` to a caller it will not tell, so nothing leaks either way):
 * - the client the token was issued to;
 * - a resource server named in INTROSPECTION_RESOURCE_SERVERS, for tokens meant for it: the token's
 *   audience includes one of the resources that client is registered with.
 * Any other confidential client learns nothing about other clients' tokens (their subject, scopes or
 * even whether they are live).
 */
export function mayIntrospect(
  caller: Pick<ClientDoc, '_id' | 'resources'>,
  resourceServers: readonly string[],
  token: { clientId: string; audience: string | string[] },
): boolean {
  if (token.clientId === caller._id) return true;
  if (!resourceServers.includes(caller._id)) return false;
  const audience = Array.isArray(token.audience) ? token.audience : [token.audience];
  return audience.some((aud) => caller.resources.includes(aud));
}
