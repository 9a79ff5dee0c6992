// The two subscriber clients bench/subscriptions can drive, both speaking graphql-transport-ws to the
// same servers. `graphql-ws` is the library users run. `lean` is the same protocol over `ws` with no
// per-message validation or parsing beyond the title it needs: at 100,000 messages a second on two
// cores, the graphql-ws client's own work would otherwise be the largest consumer of CPU on the
// machine, and the benchmark would measure itself rather than the servers.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const TITLE = /"title":"((?:[^"\\]|\\.)*)"/;
const NEXT_PREFIX = '{"id":"1","type":"next"';

/** Opens one subscription; `onTitle` gets each event's post title, `onError` any failure. Returns a disposer. */
export function openSubscriber(kind, { url, connectionParams, query, onTitle, onError }) {
  if (kind === 'graphql-ws') {
    const client = createClient({ url, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: false });
    client.subscribe(
      { query },
      { next: ({ data }) => onTitle(data?.onPostCreated?.title ?? ''), error: onError, complete: () => undefined },
    );
    return () => client.dispose();
  }
  let disposed = false;
  const socket = new WebSocket(url, 'graphql-transport-ws', { perMessageDeflate: false });
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })));
  socket.on('message', (data) => {
    const text = data.toString();
    // graphql-ws servers write `next` messages with their keys in this order; anything else is parsed.
    if (text.startsWith(NEXT_PREFIX)) {
      onTitle(TITLE.exec(text)?.[1] ?? '');
      return;
    }
    const message = JSON.parse(text);
    if (message.type === 'connection_ack')
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
    else if (message.type === 'ping') socket.send('{"type":"pong"}');
    else if (message.type === 'next') onTitle(message.payload?.data?.onPostCreated?.title ?? '');
    else if (message.type === 'error') onError(message.payload);
  });
  socket.on('error', (err) => onError(err));
  socket.on('close', (code) => {
    if (!disposed) onError(new Error(`closed ${code}`));
  });
  return () => {
    disposed = true;
    socket.close(1000);
  };
}
