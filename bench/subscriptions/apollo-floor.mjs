// The floor for bench/subscriptions: one process, Apollo Server for the mutation over HTTP and
// graphql-ws for subscriptions, fed by graphql-subscriptions' in-memory PubSub. No auth, no
// database, no Kafka: the least work a subscription server can do.
import http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { makeExecutableSchema } from '@graphql-tools/schema';
import express from 'express';
import { PubSub } from 'graphql-subscriptions';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';

const typeDefs = `
  type User { id: ID!, name: String! }
  type Post { id: ID!, title: String!, author: User! }
  type Query { ok: Boolean }
  type Mutation { createPost(title: String!): Post! }
  type Subscription { onPostCreated: Post! }
`;
const pubsub = new PubSub();
let next = 1;
const resolvers = {
  Query: { ok: () => true },
  Mutation: {
    createPost: async (_root, { title }) => {
      const post = { id: String(next++), title, author: { id: 'u1', name: 'Bench' } };
      await pubsub.publish('POST_CREATED', { onPostCreated: post });
      return post;
    },
  },
  Subscription: { onPostCreated: { subscribe: () => pubsub.asyncIterableIterator('POST_CREATED') } },
};
const schema = makeExecutableSchema({ typeDefs, resolvers });
const app = express();
const server = http.createServer(app);
const wss = new WebSocketServer({ server, path: '/graphql' });
useServer({ schema }, wss);
const apollo = new ApolloServer({ schema });
await apollo.start();
app.get('/readyz', (_req, res) => res.json({ ok: true }));
app.use('/graphql', express.json(), expressMiddleware(apollo));
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
