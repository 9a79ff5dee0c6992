import type { NextFunction, Request, Response } from 'express';
import mongoose from 'mongoose';
import { isStoreUnavailable } from '@platform/stores';
import type { Logger } from '@platform/logger';
import { speechErrorHandler } from '../src/speech/speech-errors';

/** The parts of a response the handlers use, recording what they sent. */
function fakeResponse() {
  const sent: { status?: number; body?: unknown } = {};
  const res = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return res;
    },
    json(body: unknown) {
      sent.body = body;
      return res;
    },
    setHeader: () => res,
    destroy: () => undefined,
  };
  return { res: res as unknown as Response, sent };
}

const logged: unknown[] = [];
const logger = {
  error: (...args: unknown[]) => logged.push(args),
  warn: () => undefined,
  info: () => undefined,
} as unknown as Logger;
const outage = new mongoose.mongo.MongoNetworkError('connection to 127.0.0.1:27027 closed');
const notPrimary = new mongoose.mongo.MongoServerError({
  message: 'not primary',
  code: 10107,
  codeName: 'NotWritablePrimary',
});

describe('a MongoDB outage in the speech edge', () => {
  it('is recognised; an ordinary server error (duplicate key) is not', () => {
    expect(isStoreUnavailable(outage)).toBe(true);
    expect(isStoreUnavailable(notPrimary)).toBe(true);
    expect(isStoreUnavailable(new mongoose.mongo.MongoServerError({ message: 'dup', code: 11000 }))).toBe(false);
    expect(isStoreUnavailable(new Error('bug'))).toBe(false);
  });

  // One error handler ends every speech router; both rows are kept from when each had its own.
  it.each([
    ['TTS routes', speechErrorHandler(logger)],
    ['voices/history/user routes', speechErrorHandler(logger)],
  ])('%s answer 503 in the speech shape, and a bug still 500', (_name, handler) => {
    for (const err of [outage, notPrimary]) {
      const { res, sent } = fakeResponse();
      handler(err, {} as Request, res, (() => undefined) as NextFunction);
      expect(sent.status).toBe(503);
      expect(sent.body).toEqual({
        detail: { status: 'error', message: expect.stringMatching(/temporarily unavailable/) },
      });
    }
    const { res, sent } = fakeResponse();
    handler(new Error('bug'), {} as Request, res, (() => undefined) as NextFunction);
    expect(sent.status).toBe(500);
  });
});
