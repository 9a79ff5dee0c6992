import express, { type Router } from 'express';
import type { Logger } from '@platform/logger';
import { documentRoutes } from './document-routes';
import { referencePages } from './reference-pages';

interface ReferenceOptions {
  publicUrl: string;
  /** KAFKA_BROKERS, which the AsyncAPI document names as the platform's Kafka. */
  kafkaBrokers: readonly string[];
  /** The OAuth client Swagger UI's "Authorize" signs in as (API_REFERENCE_CLIENT_ID); empty: none. */
  clientId: string;
  /** The built reference pages (the playground's dist/reference). */
  dir: string;
  logger: Logger;
}

/** What the platform publishes about itself: the interface documents and the pages that render them. */
export function referenceRoutes(options: ReferenceOptions): Router {
  const router = express.Router();
  router.use(documentRoutes({ publicUrl: options.publicUrl, kafkaBrokers: options.kafkaBrokers }));
  const pages = referencePages(options.dir, options.publicUrl, options.clientId, options.logger);
  if (pages) router.use(pages);
  return router;
}
