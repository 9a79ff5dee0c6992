import type { Identity } from '@platform/identity';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The caller, set by the gateway's authentication before any route handler runs. */
      identity?: Identity;
    }
  }
}

export {};
