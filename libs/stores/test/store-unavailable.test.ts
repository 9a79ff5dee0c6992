import { ReplyError } from 'ioredis';
import { MaxRetriesPerRequestError } from 'ioredis/built/errors';
import mongoose from 'mongoose';
import { isRedisUnavailable, isStoreUnavailable, retryWhileStoreUnavailable } from '../src';

const reply = (message: string) => new (ReplyError as unknown as new (message: string) => Error)(message);
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

describe('a store that cannot serve now', () => {
  it('Redis out of reach or restarting is an outage (503), a Redis reply about the command is not', () => {
    // What ioredis throws while Redis is away: the client's retries for the command spent, the connection dropped.
    const outages: Error[] = [
      new MaxRetriesPerRequestError(2) as unknown as Error,
      new Error('Connection is closed.'),
      refused,
      reply('LOADING Redis is loading the dataset in memory'),
      reply("READONLY You can't write against a read only replica."),
    ];
    for (const err of outages) {
      expect([err.message, isRedisUnavailable(err), isStoreUnavailable(err)]).toEqual([err.message, true, true]);
    }
    for (const err of [
      reply('WRONGTYPE Operation against a key holding the wrong kind of value'),
      reply('ERR unknown command'),
      new Error('boom'),
      'LOADING',
    ]) {
      expect(isStoreUnavailable(err)).toBe(false);
    }
  });

  it('MongoDB without a primary stays an outage', () => {
    const noPrimary = new mongoose.mongo.MongoServerError({ message: 'not primary', code: 10107 });
    expect(isStoreUnavailable(noPrimary)).toBe(true);
  });
});

describe('retryWhileStoreUnavailable', () => {
  it('repeats the work while the store is unavailable, and returns its result once it serves', async () => {
    let calls = 0;
    const result = await retryWhileStoreUnavailable(async () => {
      calls += 1;
      if (calls < 3) throw new Error('Connection is closed.');
      return 'settled';
    }, 30_000);
    expect([result, calls]).toEqual(['settled', 3]);
  });

  it('throws any other failure at once, and an outage once the bound has passed', async () => {
    let calls = 0;
    await expect(
      retryWhileStoreUnavailable(async () => {
        calls += 1;
        throw new Error('a bug');
      }),
    ).rejects.toThrow('a bug');
    expect(calls).toBe(1);
    await expect(retryWhileStoreUnavailable(async () => Promise.reject(refused), 0)).rejects.toBe(refused);
  });
});
