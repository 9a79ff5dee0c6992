import type { Redis } from 'ioredis';
import type { Model } from 'mongoose';
import type { Logger } from '@platform/logger';
import type { AccountDoc } from './accounts/account-model';
import type { AuditEntryDoc } from './admin/admin-audit';
import type { ApiKeyDoc } from './api-keys/api-key-model';
import type { ClientDoc } from './clients/client-model';
import type { LogoutDeliveryDoc } from './backchannel-logout/logout-delivery-model';
import type { AuthConfig } from './config';
import type { SigningKeys } from './keys/signing-keys';
import type { RefreshTokenDoc } from './tokens/refresh-tokens';

/** Everything a handler may need, passed in (tests hand in their own). */
export interface Deps {
  config: AuthConfig;
  logger: Logger;
  redis: Redis;
  keys: SigningKeys;
  accounts: Model<AccountDoc>;
  apiKeys: Model<ApiKeyDoc>;
  clients: Model<ClientDoc>;
  refreshTokens: Model<RefreshTokenDoc>;
  /** Append-only log of administration changes (admin/admin-audit.ts). */
  adminAudit: Model<AuditEntryDoc>;
  /** Back-channel logout tokens waiting for delivery (backchannel-logout/logout-outbox.ts). */
  logoutDeliveries: Model<LogoutDeliveryDoc>;
}
