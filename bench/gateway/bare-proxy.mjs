// The floor for "what a hop costs": a Node HTTP server that forwards each request to content through
// undici (the gateway's client) with a signed identity header, and streams the answer back. No
// authentication, limits, logging or routing: what any Node proxy in front of content would add on
// this machine. Env: PORT, CONTENT_URL, INTERNAL_SECRET, IDENTITY (JSON of the identity to sign).
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import { signIdentity } from '../../libs/identity/dist/index.js';

const content = new URL(process.env.CONTENT_URL);
const agent = new Agent({ keepAliveTimeout: 4_000, connections: 256 });
const identity = JSON.parse(process.env.IDENTITY);
let header = await signIdentity(identity, process.env.INTERNAL_SECRET);
// The header lives 60 s; signed again off the request path.
setInterval(() => void signIdentity(identity, process.env.INTERNAL_SECRET).then((h) => (header = h)), 20_000).unref();

const server = http.createServer(async (req, res) => {
  if (req.url === '/readyz') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  try {
    // The credential stays here, as at the gateway.
    const headers = { ...req.headers };
    delete headers.authorization;
    const answer = await request(`${content.origin}${req.url}`, {
      method: req.method,
      headers: { ...headers, 'x-platform-identity': header },
      dispatcher: agent,
    });
    const out = {};
    for (const [name, value] of Object.entries(answer.headers))
      if (name !== 'connection' && name !== 'keep-alive' && name !== 'transfer-encoding') out[name] = value;
    res.writeHead(answer.statusCode, out);
    await pipeline(answer.body, res);
  } catch {
    res.destroy();
  }
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
