import mongoose from 'mongoose';

/**
 * True when a failed entity write certainly changed nothing, so its outbox record may go at once.
 * Mongoose validation errors are raised before anything is sent; a server's error answer to a
 * single-document write means it was not applied (a write-concern error is the exception: applied,
 * not yet replicated). Anything else (a reset connection, a timeout, a crash between the steps)
 * leaves the outcome unknown: the record stays pending and the relay decides from the entity.
 */
export function provesNothingWritten(err: unknown): boolean {
  const { ValidationError, CastError, StrictModeError } = mongoose.Error;
  if (err instanceof ValidationError || err instanceof CastError || err instanceof StrictModeError) return true;
  return err instanceof mongoose.mongo.MongoServerError && !(err instanceof mongoose.mongo.MongoWriteConcernError);
}
