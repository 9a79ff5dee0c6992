import { clientCredentialsForm } from '@platform/oauth-grants';
import { scopeList } from '../oauth/params';
import { scopesFor } from '../oauth/resources';
import { defineGrant } from './grant-descriptor';
import { clientAudience, issueGrantTokens } from './grant-steps';

/** RFC 6749 §4.4: the token represents the client itself (confidential clients only); no refresh token. */
export const clientCredentialsGrant = defineGrant({
  form: clientCredentialsForm,
  clients: 'confidential',
  issues: { refreshToken: 'never', idToken: false },
  handler: async (ctx, form) => {
    const issued = await issueGrantTokens(ctx, {
      sub: ctx.client._id,
      clientId: ctx.client._id,
      scopes: scopesFor(ctx.client.scopes, scopeList(form.scope)),
      audience: clientAudience(ctx, form.resource),
    });
    return issued.response;
  },
});
