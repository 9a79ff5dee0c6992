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
