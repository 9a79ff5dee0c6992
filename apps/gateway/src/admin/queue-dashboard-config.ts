import { env } from '@platform/config';
import type { z } from 'zod';

/**
 * The queue dashboard's settings (docs/gateway.md, docs/configuration.md). The gateway's configuration
 * takes them into its own (config.ts).
 */
export const queueDashboardConfigShape = {
  /** The client the queue dashboard signs administrators in as (auth registers it); empty: header tokens only. */
  QUEUE_DASHBOARD_CLIENT_ID: env.queueDashboardClientId,
};

/** The queue dashboard's settings as parsed. */
export type QueueDashboardConfig = z.output<z.ZodObject<typeof queueDashboardConfigShape>>;
