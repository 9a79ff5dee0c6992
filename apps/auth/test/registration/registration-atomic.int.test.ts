import type { IncomingMessage } from 'node:http';
import Redis from 'ioredis';
import mongoose, { Schema } from 'mongoose';
import { stackEnv, uniqueName } from '@platform/testing';
import { clientModel, type ClientDoc } from '../../src/clients/client-model';
import { loadAuthConfig } from '../../src/config';
import { registerDynamicClient } from '../../src/registration/client-registration';
import { registrationModel, type RegistrationDoc } from '../../src/registration/registration-model';

// Dynamic registration stores two records, the registration (its access token) and the client; whichever
// write fails, no client is left that its registrant never got credentials for and could not manage.
// Each store is made to fail by a model of the same name whose save throws (registrationModel and
// clientModel take the connection's model of that name when there is one), on the real MongoDB.

const env = stackEnv();
let redis: Redis;
const connections: mongoose.Connection[] = [];
const anonymous = { headers: {} } as IncomingMessage;

beforeAll(() => {
  redis = new Redis(env.REDIS_URL);
});
afterAll(async () => {
  for (const conn of connections) {
    await conn.dropDatabase();
    await conn.close();
  }
  await redis.quit();
});

async function connection(): Promise<mongoose.Connection> {
  const conn = await mongoose.createConnection(env.MONGO_URL!, { dbName: uniqueName('auth_reg_atomic') }).asPromise();
  connections.push(conn);
  return conn;
}

/** A model over `collection` under `name` whose every save fails, as a store that is down would. */
function failingModel<T>(conn: mongoose.Connection, name: string, collection: string): void {
  const schema = new Schema<T>({ _id: String }, { strict: false, versionKey: false });
  schema.pre('save', () => {
    throw new Error(`${collection} store unavailable`);
  });
  conn.model<T>(name, schema, collection);
}

function deps(conn: mongoose.Connection) {
  const config = loadAuthConfig({
    MONGO_URL: env.MONGO_URL,
    REDIS_URL: env.REDIS_URL,
    REGISTRATION_OPEN: 'true',
    PUBLIC_URL: 'http://127.0.0.1:1',
    INTERNAL_SECRET: 'registration-atomic-test-secret-0123456789',
  });
  const clients = clientModel(conn);
  return { config, redis, clients, refreshTokens: clients as never, apiKeys: clients as never };
}

const metadata = { redirect_uris: ['https://rp.example/cb'], client_name: 'Atomic' };

it('the registration access token cannot be stored: the registration fails and no client exists', async () => {
  const conn = await connection();
  failingModel<RegistrationDoc>(conn, 'ClientRegistration', 'client_registrations');
  await expect(registerDynamicClient(deps(conn), anonymous, metadata)).rejects.toThrow(
    /client_registrations store unavailable/,
  );
  expect(await clientModel(conn).countDocuments()).toBe(0);
});

it('the client cannot be stored: the registration stored before it is removed', async () => {
  const conn = await connection();
  failingModel<ClientDoc>(conn, 'Client', 'clients');
  await expect(registerDynamicClient(deps(conn), anonymous, metadata)).rejects.toThrow(/clients store unavailable/);
  expect(await registrationModel(conn).countDocuments()).toBe(0);
  expect(await conn.collection('clients').countDocuments()).toBe(0);
});

it('the control: both stores up, one client and its registration', async () => {
  const conn = await connection();
  const made = await registerDynamicClient(deps(conn), anonymous, metadata);
  expect(await clientModel(conn).countDocuments({ _id: made.client_id as string })).toBe(1);
  expect(await registrationModel(conn).countDocuments({ _id: made.client_id as string })).toBe(1);
});
