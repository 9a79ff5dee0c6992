import { env } from '@platform/config';
import { z } from 'zod';

/**
 * The edge authentication's settings (docs/gateway.md "Authentication", docs/configuration.md), each
 * default written here once: the gateway's configuration takes them into its own (config.ts).
 */
export const authenticationConfigShape = {
  /** How long a resolved API key is trusted without asking auth again (revocation clears it at once). */
  API_KEY_CACHE_TTL_MS: env.positiveInt(30_000),
  /**
   * How long a key auth does not know is refused without asking auth again (0: never cached).
   * Short on purpose: it only delays a disabled account's keys working again (docs/gateway.md).
   */
  API_KEY_UNKNOWN_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /**
   * Every this many ms, the tokens of open graphql-ws connections are checked against auth's
   * revocations in Redis: the bound when a revocation notice on `auth:revocations` was missed.
   */
  WS_REVOCATION_SWEEP_MS: env.positiveInt(5_000),
};

/** The edge authentication's settings as parsed, with the gateway's address, auth's and the bounds it also reads. */
export type AuthenticationConfig = z.output<z.ZodObject<typeof authenticationConfigShape>> & {
  PUBLIC_URL: string;
  AUTH_URL: string;
  INTERNAL_SECRET: string;
  UPSTREAM_TIMEOUT_MS: number;
};
