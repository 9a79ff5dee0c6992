import mongoose, { type Connection } from 'mongoose';
import { stackEnv, uniqueName } from '@platform/testing';
import { counterModel, idSequences, type CounterModel } from '../src/models/counters';

let connection: Connection;
let counters: CounterModel;
beforeAll(async () => {
  connection = await mongoose.createConnection(stackEnv().MONGO_URL, { dbName: uniqueName('ids') }).asPromise();
  counters = counterModel(connection);
});
afterAll(async () => {
  await connection?.dropDatabase();
  await connection?.close();
});

describe('id sequences, a block at a time', () => {
  it('two processes asking at once get unique ids, each its own in order, and take whole blocks', async () => {
    // Two replicas of content: two sequences over the same counter document.
    const [a, b] = [idSequences(counters, 20), idSequences(counters, 20)];
    const [fromA, fromB] = await Promise.all(
      [a, b].map((ids) => Promise.all(Array.from({ length: 50 }, () => ids.next('posts')))),
    );
    expect(new Set([...fromA!, ...fromB!]).size).toBe(100);
    // In one process, ids follow the order they were asked for.
    for (const ids of [fromA!, fromB!]) expect(ids).toEqual([...ids].sort((x, y) => x - y));
    // 50 ids are three blocks of 20 for each process: six $inc of the counter, the last ten of each unused so far.
    expect((await counters.findById('posts').lean())?.value).toBe(120);
    // The next ten of each come from the blocks in hand, without another $inc.
    await Promise.all(Array.from({ length: 10 }, () => a.next('posts')));
    await Promise.all(Array.from({ length: 10 }, () => b.next('posts')));
    expect((await counters.findById('posts').lean())?.value).toBe(120);
  });

  it('a sequence started afresh (a restarted process) goes on after every block taken before', async () => {
    const before = await idSequences(counters, 20).next('comments');
    const after = await idSequences(counters, 20).next('comments');
    expect(before).toBe(1);
    expect(after).toBe(21);
  });
});
