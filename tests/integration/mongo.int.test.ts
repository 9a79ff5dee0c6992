import { randomBytes, createHash } from 'node:crypto';
import mongoose from 'mongoose';
import { stackEnv, uniqueName } from '@platform/testing';

describe('MongoDB-compatible server from the local stack', () => {
  const connection = mongoose.createConnection(stackEnv().MONGO_URL, {
    dbName: uniqueName('it_mongo'),
    serverSelectionTimeoutMS: 5000,
  });
  afterAll(async () => {
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
  });

  it('rejects a duplicate of a unique index', async () => {
    const Account = connection.model(
      'Account',
      new mongoose.Schema({ email: { type: String, required: true, unique: true }, name: String }),
    );
    await Account.init();
    await Account.create({ email: 'a@example.com', name: 'A' });
    await expect(Account.create({ email: 'a@example.com', name: 'B' })).rejects.toMatchObject({ code: 11000 });
    expect(await Account.countDocuments({ email: 'a@example.com' })).toBe(1);
  });

  it('stores and reads back 1 MiB through GridFS', async () => {
    await connection.asPromise();
    const bucket = new mongoose.mongo.GridFSBucket(connection.db!, { bucketName: 'audio' });
    const data = randomBytes(1024 * 1024);
    const id = await new Promise<mongoose.mongo.ObjectId>((resolve, reject) => {
      const upload = bucket.openUploadStream('sample.bin', { metadata: { contentType: 'application/octet-stream' } });
      upload.once('error', reject);
      upload.once('finish', () => resolve(upload.id));
      upload.end(data);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of bucket.openDownloadStream(id)) chunks.push(chunk as Buffer);
    const read = Buffer.concat(chunks);
    expect(read.length).toBe(data.length);
    expect(createHash('sha256').update(read).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('applies concurrent conditional updates atomically, as MongoDB does', async () => {
    await connection.asPromise();
    const counters = connection.db!.collection<{ _id: string; n: number }>('counters');
    await counters.insertOne({ _id: 'c', n: 0 });
    const results = await Promise.all(
      Array.from({ length: 40 }, () => counters.findOneAndUpdate({ _id: 'c', n: { $lt: 10 } }, { $inc: { n: 1 } })),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(10);
    expect((await counters.findOne({ _id: 'c' }))?.n).toBe(10);
    const deletes = await Promise.all(Array.from({ length: 10 }, () => counters.findOneAndDelete({ _id: 'c' })));
    expect(deletes.filter((r) => r !== null)).toHaveLength(1);
  });
});
