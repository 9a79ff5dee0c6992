import type { Model } from 'mongoose';
import { SUPPORTED_SCOPES } from '../oauth/scopes';
import type { ClientDoc } from './client-model';

/**
 * The playground page (served by the gateway at `/`) signs people in as this public client: the
 * authorization code flow with PKCE, no secret (a page cannot keep one), redirecting back to the page.
 * The platform owns the registration: every boot writes it again from PUBLIC_URL, so a changed public
 * address takes effect, and replicas booting together write the same document (the model's timestamps
 * set `createdAt` on the first).
 */
export async function registerPlaygroundClient(model: Model<ClientDoc>, clientId: string, publicUrl: string): Promise<void> {
  const page = `${publicUrl.replace(/\/+$/, '')}/`;
  await model.updateOne(
    { _id: clientId },
    {
      $set: {
        name: 'Playground',
        type: 'public',
        grantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [page],
        postLogoutRedirectUris: [page],
        scopes: [...SUPPORTED_SCOPES],
        resources: [publicUrl.replace(/\/+$/, '')],
        secretHash: null,
        secretSealed: null,
        jwks: null,
        tokenExchange: null,
      },
    },
    { upsert: true },
  );
}
