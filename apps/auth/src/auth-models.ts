import type { Connection } from 'mongoose';
import { auditModel } from './admin/admin-audit';
import { accountModel } from './accounts/account-model';
import { apiKeyModel } from './api-keys/api-key-model';
import { logoutDeliveryModel } from './backchannel-logout/logout-delivery-model';
import { clientModel } from './clients/client-model';
import { initialAccessTokenModel } from './registration/initial-access-tokens';
import { registrationModel } from './registration/registration-model';
import { refreshTokenModel } from './tokens/refresh-tokens';

/** The MongoDB models of the auth database, with their indexes built before the app is ready. */
export async function authModels(conn: Connection) {
  const models = {
    accounts: accountModel(conn),
    apiKeys: apiKeyModel(conn),
    clients: clientModel(conn),
    refreshTokens: refreshTokenModel(conn),
    adminAudit: auditModel(conn),
    logoutDeliveries: logoutDeliveryModel(conn),
  };
  // Dynamic registration's collections (registration/), reached through the connection: indexes built here too.
  await Promise.all(
    [...Object.values(models), initialAccessTokenModel(conn), registrationModel(conn)].map((m) => m.init()),
  );
  return models;
}
