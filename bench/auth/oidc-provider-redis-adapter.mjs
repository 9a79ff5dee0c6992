// A Redis storage adapter for oidc-provider, so the baseline keeps its state in the same class of store
// as our server (clients in memory from configuration like our in-process client cache, tokens and grants
// in Redis). Written against oidc-provider's adapter interface (upsert/find/consume/destroy/revokeByGrantId).
import Redis from 'ioredis';

export function redisAdapter(url) {
  const client = new Redis(url, { keyPrefix: `bench-oidc-${process.pid}:` });
  const key = (model, id) => `${model}:${id}`;

  return class RedisAdapter {
    constructor(model) {
      this.model = model;
    }

    async upsert(id, payload, expiresIn) {
      const multi = client.multi();
      multi.set(key(this.model, id), JSON.stringify(payload), ...(expiresIn ? ['EX', expiresIn] : []));
      if (payload.grantId) {
        const grant = `grant:${payload.grantId}`;
        multi.rpush(grant, key(this.model, id));
        if (expiresIn) multi.expire(grant, expiresIn);
      }
      if (payload.userCode) multi.set(`userCode:${payload.userCode}`, id, ...(expiresIn ? ['EX', expiresIn] : []));
      if (payload.uid) multi.set(`uid:${payload.uid}`, id, ...(expiresIn ? ['EX', expiresIn] : []));
      await multi.exec();
    }

    async find(id) {
      const data = await client.get(key(this.model, id));
      return data ? JSON.parse(data) : undefined;
    }

    async findByUserCode(userCode) {
      const id = await client.get(`userCode:${userCode}`);
      return id ? this.find(id) : undefined;
    }

    async findByUid(uid) {
      const id = await client.get(`uid:${uid}`);
      return id ? this.find(id) : undefined;
    }

    async consume(id) {
      const found = await this.find(id);
      if (!found) return;
      found.consumed = Math.floor(Date.now() / 1000);
      const ttl = await client.ttl(key(this.model, id));
      await client.set(key(this.model, id), JSON.stringify(found), ...(ttl > 0 ? ['EX', ttl] : []));
    }

    async destroy(id) {
      await client.del(key(this.model, id));
    }

    async revokeByGrantId(grantId) {
      const grant = `grant:${grantId}`;
      const members = await client.lrange(grant, 0, -1);
      await client.del(...members, grant);
    }
  };
}
