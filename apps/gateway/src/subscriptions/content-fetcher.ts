import { request, type Dispatcher } from 'undici';
import { signIdentity, type Identity } from '@platform/identity';
import type { FieldFetcher } from './nested-fetch';

/**
 * The identity nested fetches use: the gateway itself, reading with ADMIN rights. What the
 * subscriber may see was decided when they subscribed (@auth) and is applied again to the
 * result (email visibility), so one fetch can serve every subscriber.
 */
const GATEWAY_READER: Identity = {
  roles: ['ADMIN'],
  scope: 'content:read',
  method: 'internal',
  clientId: 'platform-gateway',
};

export function contentFieldFetcher(
  contentUrl: string,
  internalSecret: string,
  dispatcher: Dispatcher,
  timeoutMs: number,
): FieldFetcher {
  const url = new URL('/graphql', contentUrl);
  return async (query, variables) => {
    const answer = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-platform-identity': await signIdentity(GATEWAY_READER, internalSecret),
      },
      body: JSON.stringify({ query, variables }),
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await answer.body.json().catch(() => null)) as {
      data?: { entity?: unknown };
      errors?: { message?: unknown }[];
    } | null;
    if (!body || (answer.statusCode !== 200 && !body.data)) throw new Error(`content answered ${answer.statusCode}`);
    if (!body.data?.entity && body.errors?.length)
      throw new Error(String(body.errors[0]?.message ?? 'content query failed'));
    return body.data?.entity ?? null;
  };
}
