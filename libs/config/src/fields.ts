import { z } from 'zod';

/** Field validators shared by every app, so each variable means the same thing everywhere. */

function urlWithProtocols(protocols: string[]) {
  return z.string().refine(
    (value) => {
      try {
        const url = new URL(value);
        return protocols.includes(url.protocol) && url.hostname.length > 0;
      } catch {
        return false;
      }
    },
    { message: `must be a URL with protocol ${protocols.join(' or ')}` },
  );
}

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const host = z.string().min(1).default('127.0.0.1');
/**
 * The internal listener serving Prometheus metrics at `GET /metrics` (bound to the app's HOST);
 * unset or empty: no metrics listener (tests start many replicas on one machine).
 */
export const metricsPort = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z.coerce.number().int().min(0).max(65535).optional(),
);
export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');
export const redisUrl = urlWithProtocols(['redis:', 'rediss:']);
export const mongoUrl = urlWithProtocols(['mongodb:', 'mongodb+srv:']);
export const httpUrl = urlWithProtocols(['http:', 'https:']);
export const kafkaBrokers = z
  .string()
  .min(1)
  .refine((value) => value.split(',').every((b) => /^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/.test(b.trim())), {
    message: 'must be a comma-separated list of host:port',
  })
  .transform((value) => value.split(',').map((b) => b.trim()));
/**
 * A comma-separated list of web origins (`scheme://host[:port]`, as a browser sends them in
 * `Origin`), each checked to be exactly an origin (no path, no trailing slash); empty: none.
 */
export const origins = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== ''),
  )
  .refine((list) => list.every(isOrigin), {
    message: 'must be a comma-separated list of origins such as https://app.example.com (no path)',
  });

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** Shared secret for service-to-service trust; long enough to be an HMAC key. */
export const internalSecret = z.string().min(32, 'must be at least 32 characters');
export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
export const boolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');
/** The id of a client the platform registers for one of its own pages; empty turns that page's sign-in off. */
const platformClientId = (fallback: string) =>
  z
    .string()
    .regex(/^$|^[A-Za-z0-9._-]{3,64}$/, 'must be empty or 3-64 of A-Z a-z 0-9 . _ -')
    .default(fallback);
/**
 * The OAuth client id of the playground page the gateway serves at `/` (a public client that auth
 * registers at boot): the same variable in both apps. Empty turns the playground off in both.
 */
export const playgroundClientId = platformClientId('playground');
/**
 * The OAuth client id the gateway's queue dashboard (`/admin/queues`) signs administrators in as (a
 * public client for the `admin` scope that auth registers at boot): the same variable in both apps.
 * Empty: no browser sign-in there (an access token in the Authorization header still works).
 */
export const queueDashboardClientId = platformClientId('queue-dashboard');
/**
 * The OAuth client id of the API reference (`/docs`, Swagger UI's "Authorize" with PKCE; a public
 * client that auth registers at boot): the same variable in both apps. Empty: no sign-in there.
 */
export const apiReferenceClientId = platformClientId('api-reference');
