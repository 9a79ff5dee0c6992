import { env } from '@platform/config';
import { z } from 'zod';
import { trustedProxiesProblem } from './trusted-proxies';

/**
 * The edge limits' settings (docs/security.md "Rate limits", docs/configuration.md), each default
 * written here once: the gateway's configuration takes them into its own (config.ts).
 */
export const limitsConfigShape = {
  /**
   * The hops whose X-Forwarded-For is believed (the load balancer's addresses): a comma-separated list
   * of addresses, CIDR ranges or loopback/linklocal/uniquelocal. Empty (default): none; the client is
   * the socket's peer.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      const problem = trustedProxiesProblem(value);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    }),
  /** Renamed TRUSTED_PROXIES (whose default trusts no one): refused, so a deployment that set it notices. */
  TRUST_PROXY: z
    .undefined({ message: 'renamed TRUSTED_PROXIES (a list of proxy addresses/CIDRs; default: none)' })
    .optional(),
  /** Redis key prefix of the shared rate-limit state (tests use a unique one). */
  RATE_LIMIT_PREFIX: z.string().min(1).max(100).default('gw:limits'),
  /** Enterprise plan limits ("custom" in the speech API's plan table). */
  ENTERPRISE_RPS: env.positiveInt(50),
  ENTERPRISE_CONCURRENCY: env.positiveInt(25),
  /** Optional JSON `{"<plan>": {"rps": n, "concurrency": n}}` overriding the built-in table. */
  PLAN_LIMITS_JSON: z.string().default(''),
};

/** The edge limits' settings as parsed. */
export type LimitsConfig = z.output<z.ZodObject<typeof limitsConfigShape>>;
