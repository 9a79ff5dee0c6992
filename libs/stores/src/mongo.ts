import mongoose, { type Connection } from 'mongoose';
import { isRedisUnavailable } from './redis';

/**
 * One connection per service database. Each service owns its own database on the shared server
 * (design notes), so the name is chosen by the app, not by the URL.
 */
export async function connectMongo(url: string, dbName: string): Promise<Connection> {
  // Mongoose otherwise records a stack trace (`new Error().stack`) at every query's execution, only to show it
  // if the same query object is executed twice, which this code never does: 1.2 % of content's CPU on a list.
  mongoose.set('skipOriginalStackTraces', true);
  const connection = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 5000,
    // The driver's defaults, made explicit: a write or read that meets a primary's step-down or a dropped
    // connection is retried once on the (new) primary, so a replica-set election or a member's restart does
    // not fail it (docs/operations.md, "Surviving dependency restarts").
    retryWrites: true,
    retryReads: true,
    // Index builds run at boot; the app is not ready until they are done.
    autoIndex: true,
  });
  await connection.asPromise();
  return connection;
}

/**
 * Readiness of a service's MongoDB: the server must be the writable primary of a replica set (or a
 * mongos), since writes and transactions go there. Resolves with what answers, for `/readyz`
 * (e.g. `mongod 6.0.5, replica set rs0, primary`); rejects while the set has no primary.
 */
export async function mongoReadiness(connection: Connection): Promise<string> {
  const db = connection.db;
  if (!db) throw new Error('mongo: not connected');
  const admin = db.admin();
  const [hello, build] = await Promise.all([admin.command({ hello: 1 }), admin.command({ buildInfo: 1 })]);
  const version = typeof build.version === 'string' ? build.version : 'unknown';
  if (hello.msg === 'isdbgrid') return `mongos ${version}`;
  if (!hello.isWritablePrimary)
    throw new Error(`mongod ${version}: not a writable primary (replica set ${String(hello.setName ?? 'none')})`);
  return `mongod ${version}, replica set ${String(hello.setName ?? 'none')}, primary`;
}

/** Server error codes that mean "no primary to take this now", not "this request is wrong". */
const NO_PRIMARY_CODES = new Set([
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * True when a store failure means the store is unreachable or cannot serve now: MongoDB without a
 * primary or out of reach, Redis restarting or out of reach (`isRedisUnavailable`). An outage the
 * caller should retry after, so the interfaces answer their 503 shape instead of a 500.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (isRedisUnavailable(err)) return true;
  const { mongo } = mongoose;
  if (err instanceof mongoose.Error.MongooseServerSelectionError) return true;
  if (!(err instanceof mongo.MongoError)) return false;
  if (
    err instanceof mongo.MongoServerSelectionError ||
    err instanceof mongo.MongoNetworkError ||
    err instanceof mongo.MongoTopologyClosedError
  )
    return true;
  if (err.hasErrorLabel('TransientTransactionError') || err.hasErrorLabel('RetryableWriteError')) return true;
  return typeof err.code === 'number' && NO_PRIMARY_CODES.has(err.code);
}

/**
 * Runs `work`, and again while it fails because the store is unavailable (`isStoreUnavailable`), with a
 * growing pause (250 ms up to 2 s), for at most `boundMs`; then the last failure is thrown. For writes made
 * after a client was already served, which must not be lost to a store's restart or election (a charge, a
 * history record); `work` must be safe to repeat.
 */
export async function retryWhileStoreUnavailable<T>(work: () => Promise<T>, boundMs = 30_000): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await work();
    } catch (err) {
      if (!isStoreUnavailable(err) || Date.now() - started >= boundMs) throw err;
      await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** attempt, 2000)));
    }
  }
}
