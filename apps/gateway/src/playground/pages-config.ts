import { env } from '@platform/config';
import { z } from 'zod';

/**
 * The settings of the pages the gateway serves itself (docs/configuration.md): the playground at `/`
 * and the API reference, both built into one folder. The gateway's configuration takes them into its
 * own (config.ts).
 */
export const pagesConfigShape = {
  /** The playground page at `/` signs in as this OAuth client (auth registers it); empty: no playground. */
  PLAYGROUND_CLIENT_ID: env.playgroundClientId,
  /** Swagger UI's "Authorize" at `/docs` signs in as this OAuth client (auth registers it); empty: no sign-in there. */
  API_REFERENCE_CLIENT_ID: env.apiReferenceClientId,
  /**
   * Where the playground's built assets are, the reference pages in its `reference/` (`npm run build`
   * writes apps/playground/dist); empty: that folder.
   */
  PLAYGROUND_DIR: z.string().default(''),
};

/** The pages' settings as parsed. */
export type PagesConfig = z.output<z.ZodObject<typeof pagesConfigShape>>;
