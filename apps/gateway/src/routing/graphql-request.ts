import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { graphqlBodyMediaTypeProblem } from '@platform/graphql-schema';
import { hasScope, insufficientScope } from '../auth/authenticate';
import { sendEdgeError } from './edge-errors';
import { readGraphqlBody } from './graphql-body';
import { graphqlOperationKind, graphqlOperationKindFromQueryString, type OperationKind } from './graphql-operation';

/** The scope each kind of operation needs; what content will not run needs read scope, which grants nothing. */
function scopeFor(kind: OperationKind): string {
  return kind === 'mutation' ? 'content:write' : 'content:read';
}

/**
 * GraphQL over HTTP at the edge, mounted after authentication and the plan limits: nothing of the
 * body is read before the limiter and the authenticator could refuse the request. Then a POST's
 * body must be UTF-8 JSON (415 otherwise: content decodes it exactly so), it is read up to
 * `maxBodyBytes` (413), its operation is found without parsing it (graphql-body.ts,
 * graphql-operation.ts; 400 for JSON nested past the bound or naming `query` twice), and a
 * credential must hold the operation's scope (403): `content:write` for a mutation,
 * `content:read` otherwise. An anonymous caller goes on to content, which decides.
 */
export function graphqlRequests(maxBodyBytes: number): Router {
  const readBody = express.raw({ type: () => true, limit: maxBodyBytes });
  const router = express.Router();
  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'POST') {
      sendEdgeError(res, 'graphql', {
        status: 405,
        code: 'invalid_request',
        message: 'use GET or POST for GraphQL over HTTP',
        headers: { allow: 'GET, POST' },
      });
      return;
    }
    if (req.method !== 'POST') return next();
    const problem = graphqlBodyMediaTypeProblem(req.headers['content-type']);
    if (problem) {
      sendEdgeError(res, 'graphql', { status: 415, code: 'invalid_request', message: problem });
      return;
    }
    readBody(req, res, next);
  });
  // Body parser failures, in the GraphQL shape.
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const type = (err as { type?: unknown }).type;
    if (type === 'entity.too.large') {
      sendEdgeError(res, 'graphql', {
        status: 413,
        code: 'payload_too_large',
        message: `request body exceeds ${maxBodyBytes} bytes`,
      });
    } else if (type === 'encoding.unsupported') {
      sendEdgeError(res, 'graphql', {
        status: 415,
        code: 'invalid_request',
        message: 'the request body’s Content-Encoding is not supported',
      });
    } else {
      sendEdgeError(res, 'graphql', {
        status: 400,
        code: 'invalid_request',
        message: 'request body could not be read',
      });
    }
  });
  router.use(async (req, res, next) => {
    let kind: OperationKind;
    if (req.method === 'GET') {
      kind = await graphqlOperationKindFromQueryString(req.query.query, req.query.operationName);
    } else {
      const body = await readGraphqlBody(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      if (body.shape === 'refused') {
        sendEdgeError(res, 'graphql', { status: 400, code: 'invalid_request', message: body.message });
        return;
      }
      kind = await graphqlOperationKind(body);
    }
    const identity = req.identity;
    const needed = scopeFor(kind);
    if (identity && identity.method !== 'anonymous' && !hasScope(identity.scope, needed)) {
      sendEdgeError(res, 'graphql', insufficientScope(identity.method === 'dpop_jwt' ? 'DPoP' : 'Bearer', needed));
      return;
    }
    next();
  });
  return router;
}
