import type { Identity } from '@platform/identity';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The caller, set by the gateway's authentication before any route handler runs. */
      identity?: Identity;
      /**
       * Set when the request's access token was verified with its revocation check deferred: the
       * plan limiter checks `key` in the same Redis round trip and refuses the request if it is there.
       */
      tokenRevocation?: { key: string; scheme: 'Bearer' | 'DPoP' };
    }
  }
}

export {};
