import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerError } from './error-answers';
import { formBody, type FormRequest } from './form-body';
import { requestLogger, type Logger } from '@platform/logger';
import { httpMetrics, labelRoute } from '@platform/metrics';

type FormEndpoint = (req: FormRequest, res: ServerResponse) => Promise<void>;

/**
 * The hot OAuth endpoints straight from the HTTP server's `request` event, ahead of express: the same
 * request log, form parser, handler and error answers as their express routes, without express's
 * per-request prototype swaps and router walk (the largest framework cost left in a /token or
 * /introspect CPU profile). Only an exact `POST <path>` takes the lane; anything
 * else (a query string, another method, every other path) returns false and goes to express unchanged.
 */
export function fastLane(
  logger: Logger,
  endpoints: Record<string, FormEndpoint>,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const log = requestLogger(logger);
  // Express's metrics middleware never sees these requests: they are timed here, under their path.
  const timed = httpMetrics();
  const readForm = formBody();
  const lane = new Map(Object.entries(endpoints));
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const endpoint = lane.get(req.url ?? '');
    if (!endpoint) return false;
    const fail = (err: unknown) => {
      try {
        answerError(logger, err, res);
      } catch (answerErr) {
        // Never an unhandled rejection (it would end the process): log it and drop the connection.
        logger.error({ err: answerErr }, 'error answer failed');
        res.destroy();
      }
    };
    labelRoute(res, req.url ?? '');
    timed(req, res, () =>
      log(req, res, () =>
        readForm(req, res, (err) => {
          if (err !== undefined) fail(err);
          else endpoint(req, res).catch(fail);
        }),
      ),
    );
    return true;
  };
}
