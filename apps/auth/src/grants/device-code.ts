import { deviceCodeForm } from '@platform/oauth-grants';
import { OAuthError } from '../oauth/oauth-error';
import { deviceKey, readDevice, writeDevice } from '../device/device-codes';
import { defineGrant, type GrantHandler } from './grant-descriptor';
import { activeAccount, issueGrantTokens } from './grant-steps';

/** RFC 8628 §3.4/§3.5 polling: pending, slow_down (+5 s each time), access_denied, expired_token. */
const pollDeviceCode: GrantHandler<typeof deviceCodeForm> = async (ctx, form) => {
  const { deps } = ctx;
  const key = deviceKey(form.device_code);
  const record = await readDevice(deps, key);
  if (!record || record.clientId !== ctx.client._id) throw new OAuthError('invalid_grant', 'device_code is invalid');
  const now = Date.now();
  if (record.expiresAt <= now) throw new OAuthError('expired_token', 'the device code expired; start again');
  if (record.status === 'used') throw new OAuthError('invalid_grant', 'device_code was already redeemed');
  // RFC 8628 §3.5 answers with an RFC 6749 §5.2 error response: 400, not access_denied's default 403.
  if (record.status === 'denied') throw new OAuthError('access_denied', 'the user denied the request', 400);
  const tooFast = record.lastPollAt !== undefined && now - record.lastPollAt < record.interval * 1000;
  record.lastPollAt = now;
  if (tooFast) {
    record.interval += 5;
    await writeDevice(deps, key, record);
    throw new OAuthError('slow_down', `polling too fast; wait ${record.interval} s between polls`);
  }
  if (record.status === 'pending') {
    await writeDevice(deps, key, record);
    throw new OAuthError('authorization_pending', 'the user has not finished yet');
  }
  // approved: one redemption only (GETDEL makes the claim atomic across replicas).
  const claimed = await deps.redis.getdel(key);
  if (!claimed) throw new OAuthError('invalid_grant', 'device_code was already redeemed');
  await deps.redis.set(key, JSON.stringify({ ...record, status: 'used' }), 'EX', 600);
  const account = await activeAccount(deps, record.sub);
  const issued = await issueGrantTokens(ctx, {
    sub: account._id,
    clientId: ctx.client._id,
    scopes: record.scopes,
    audience: record.audience,
    account,
  });
  return issued.response;
};

export const deviceCodeGrant = defineGrant({
  form: deviceCodeForm,
  handler: pollDeviceCode,
  clients: 'any',
  issues: { refreshToken: 'new-family', idToken: false },
});
