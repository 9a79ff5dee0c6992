import type { Model } from 'mongoose';
import { ADMIN_SCOPE } from '../admin/admin-scope';
import { SUPPORTED_SCOPES } from '../oauth/scopes';
import type { ClientDoc } from './client-model';

/** What differs between the public clients the platform registers for its own pages. */
interface PlatformPageClient {
  name: string;
  grantTypes: string[];
  /** Paths under PUBLIC_URL the code comes back to. */
  redirectPaths: string[];
  postLogoutRedirectPaths: string[];
  scopes: string[];
}

/**
 * The platform owns these registrations: every boot writes them again from PUBLIC_URL, so a changed public
 * address takes effect, and replicas booting together write the same document (the model's timestamps set
 * `createdAt` on the first). Public clients: the authorization code flow with PKCE, no secret.
 */
async function registerPlatformPageClient(
  model: Model<ClientDoc>,
  clientId: string,
  publicUrl: string,
  client: PlatformPageClient,
): Promise<void> {
  const base = publicUrl.replace(/\/+$/, '');
  await model.updateOne(
    { _id: clientId },
    {
      $set: {
        name: client.name,
        type: 'public',
        grantTypes: client.grantTypes,
        redirectUris: client.redirectPaths.map((p) => `${base}${p}`),
        postLogoutRedirectUris: client.postLogoutRedirectPaths.map((p) => `${base}${p}`),
        scopes: client.scopes,
        resources: [base],
        secretHash: null,
        secretSealed: null,
        jwks: null,
        tokenExchange: null,
      },
    },
    { upsert: true },
  );
}

/**
 * The playground page (served by the gateway at `/`) signs people in as this public client (a page cannot
 * keep a secret), redirecting back to the page.
 */
export async function registerPlaygroundClient(
  model: Model<ClientDoc>,
  clientId: string,
  publicUrl: string,
): Promise<void> {
  await registerPlatformPageClient(model, clientId, publicUrl, {
    name: 'Playground',
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectPaths: ['/'],
    postLogoutRedirectPaths: ['/'],
    scopes: [...SUPPORTED_SCOPES],
  });
}

/** Where Swagger UI's OAuth2 pop-up comes back to (swagger-ui-dist's page, served by the gateway under /docs). */
export const API_REFERENCE_REDIRECT_PATH = '/docs/oauth2-redirect.html';

/**
 * The API reference (`/docs`, Swagger UI) signs people in with its "Authorize" button as this public client:
 * the authorization code flow with PKCE in a pop-up that comes back to swagger-ui-dist's redirect page, for
 * the scopes the documents' OAuth2 flows list. No refresh token: the page keeps the token for the tab only.
 */
export async function registerApiReferenceClient(
  model: Model<ClientDoc>,
  clientId: string,
  publicUrl: string,
): Promise<void> {
  await registerPlatformPageClient(model, clientId, publicUrl, {
    name: 'API reference',
    grantTypes: ['authorization_code'],
    redirectPaths: [API_REFERENCE_REDIRECT_PATH],
    postLogoutRedirectPaths: [],
    scopes: [...SUPPORTED_SCOPES],
  });
}

/**
 * The gateway's queue dashboard (`/admin/queues`, docs/gateway.md) signs administrators in as this client,
 * for the `admin` scope only (granted to ADMIN accounts alone), its code coming back to the gateway, which
 * redeems it itself: the token never reaches the page's scripts. No refresh token: sign in again.
 */
export async function registerQueueDashboardClient(
  model: Model<ClientDoc>,
  clientId: string,
  publicUrl: string,
): Promise<void> {
  await registerPlatformPageClient(model, clientId, publicUrl, {
    name: 'Queue dashboard',
    grantTypes: ['authorization_code'],
    redirectPaths: ['/admin/queues/callback'],
    postLogoutRedirectPaths: [],
    scopes: [ADMIN_SCOPE],
  });
}
