import mongoose, { type Connection } from 'mongoose';

/**
 * One connection per service database. Each service owns its own database on the shared server
 * (design notes), so the name is chosen by the app, not by the URL.
 */
export async function connectMongo(url: string, dbName: string): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 5000,
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
  if (!hello.isWritablePrimary) throw new Error(`mongod ${version}: not a writable primary (replica set ${String(hello.setName ?? 'none')})`);
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
 * True when a MongoDB failure means the store is unreachable or has no primary (an outage the
 * caller should retry after), so the interfaces answer their 503 shape instead of a 500.
 */
export function isStoreUnavailable(err: unknown): boolean {
  const { mongo } = mongoose;
  if (err instanceof mongoose.Error.MongooseServerSelectionError) return true;
  if (!(err instanceof mongo.MongoError)) return false;
  if (err instanceof mongo.MongoServerSelectionError || err instanceof mongo.MongoNetworkError || err instanceof mongo.MongoTopologyClosedError) return true;
  if (err.hasErrorLabel('TransientTransactionError') || err.hasErrorLabel('RetryableWriteError')) return true;
  return typeof err.code === 'number' && NO_PRIMARY_CODES.has(err.code);
}
