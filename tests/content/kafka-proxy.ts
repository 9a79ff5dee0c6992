import net from 'node:net';

/**
 * A TCP proxy in front of one Kafka broker that a test can cut and bring back on the same port.
 *
 * A plain port forward is not enough: a Kafka client uses its bootstrap address only for the
 * first Metadata request and then connects to the address each broker advertises (the stack's
 * broker advertises its own 127.0.0.1:9192, scripts/stack.mjs `advertised.listeners`). Cutting a
 * plain forward would leave the producer's direct connection up. So the proxy reads the Kafka
 * framing in both directions and rewrites the target broker's host and port in Metadata
 * responses to its own: every connection the client makes afterwards goes through the proxy.
 *
 * Handles Metadata v0–v8 (the non-flexible versions; kafkajs uses at most v6). A flexible
 * version (v9+) is refused loudly rather than forwarded with the broker's real address.
 */
export interface KafkaProxy {
  port: number;
  /** Client connections accepted so far. */
  readonly accepted: number;
  /** Metadata responses whose broker list was rewritten. */
  readonly rewrites: number;
  /** Connections turned away while cut (each one a client's attempt to reach the broker). */
  readonly refused: number;
  /** Protocol problems met (a test should expect none). */
  readonly problems: string[];
  /**
   * Destroys every open connection, both sides, and from then on closes each new connection as
   * soon as it is accepted (counted in `refused`), without reaching the broker.
   */
  cut(): Promise<void>;
  /** Forwards new connections to the broker again (same port). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

const METADATA = 3;
const LAST_NON_FLEXIBLE_METADATA = 8;

/** Splits a byte stream into size-prefixed Kafka frames (int32 length, then that many bytes). */
function framer(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const size = pending.readInt32BE(0);
      if (pending.length < 4 + size) break;
      onFrame(pending.subarray(0, 4 + size));
      pending = pending.subarray(4 + size);
    }
  };
}

function readString(buf: Buffer, offset: number): { value: string | null; next: number } {
  const length = buf.readInt16BE(offset);
  if (length < 0) return { value: null, next: offset + 2 };
  return { value: buf.toString('utf8', offset + 2, offset + 2 + length), next: offset + 2 + length };
}

function writeString(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const length = Buffer.alloc(2);
  length.writeInt16BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/**
 * Metadata response (header v0: correlation id), non-flexible body: [throttle_time_ms v3+],
 * brokers: int32 count × (node_id int32, host string, port int32, [rack nullable string v1+]),
 * then the rest (cluster id, controller, topics), copied unchanged.
 */
export function rewriteMetadataResponse(
  frame: Buffer,
  version: number,
  target: { host: string; port: number },
  self: { host: string; port: number },
): { frame: Buffer; rewritten: number } {
  let offset = 4 + 4; // size, correlation id
  if (version >= 3) offset += 4;
  const count = frame.readInt32BE(offset);
  offset += 4;
  const parts: Buffer[] = [frame.subarray(4, offset)];
  let rewritten = 0;
  for (let i = 0; i < count; i++) {
    const nodeId = frame.subarray(offset, offset + 4);
    const host = readString(frame, offset + 4);
    const port = frame.readInt32BE(host.next);
    let next = host.next + 4;
    if (version >= 1) next = readString(frame, next).next;
    const rack = frame.subarray(host.next + 4, next);
    if (host.value === target.host && port === target.port) {
      const portBuf = Buffer.alloc(4);
      portBuf.writeInt32BE(self.port);
      parts.push(nodeId, writeString(self.host), portBuf, rack);
      rewritten += 1;
    } else {
      parts.push(frame.subarray(offset, next));
    }
    offset = next;
  }
  parts.push(frame.subarray(offset));
  const body = Buffer.concat(parts);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return { frame: Buffer.concat([size, body]), rewritten };
}

export async function startKafkaProxy(broker: string, host = '127.0.0.1'): Promise<KafkaProxy> {
  const [targetHost, targetPort] = broker.split(':') as [string, string];
  const target = { host: targetHost, port: Number(targetPort) };
  const sockets = new Set<net.Socket>();
  const problems: string[] = [];
  let accepted = 0;
  let rewrites = 0;
  let refused = 0;
  let cutOff = false;
  let port = 0;

  function onConnection(client: net.Socket): void {
    if (cutOff) {
      refused += 1;
      client.on('error', () => undefined);
      client.destroy();
      return;
    }
    accepted += 1;
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const metadataVersions = new Map<number, number>();
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', closeBoth).on('close', closeBoth);
    upstream.on('error', closeBoth).on('close', closeBoth);

    // Requests (header v1/v2: api_key int16, api_version int16, correlation_id int32, …) pass
    // unchanged; the proxy only remembers which correlation ids are Metadata requests.
    client.on(
      'data',
      framer((frame) => {
        const apiKey = frame.readInt16BE(4);
        const apiVersion = frame.readInt16BE(6);
        if (apiKey === METADATA) {
          if (apiVersion > LAST_NON_FLEXIBLE_METADATA) {
            problems.push(`flexible Metadata v${apiVersion} is not supported by the test proxy`);
            closeBoth();
            return;
          }
          metadataVersions.set(frame.readInt32BE(8), apiVersion);
        }
        upstream.write(frame);
      }),
    );
    upstream.on(
      'data',
      framer((frame) => {
        const correlationId = frame.readInt32BE(4);
        const version = metadataVersions.get(correlationId);
        if (version === undefined) {
          client.write(frame);
          return;
        }
        metadataVersions.delete(correlationId);
        try {
          const result = rewriteMetadataResponse(frame, version, target, { host, port });
          if (result.rewritten === 0) problems.push(`Metadata v${version} response did not list ${broker}`);
          rewrites += result.rewritten > 0 ? 1 : 0;
          client.write(result.frame);
        } catch (err) {
          problems.push(`could not rewrite Metadata v${version}: ${String(err)}`);
          closeBoth();
        }
      }),
    );
  }

  const server = net.createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as net.AddressInfo).port;

  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };

  return {
    port,
    get accepted() {
      return accepted;
    },
    get rewrites() {
      return rewrites;
    },
    get refused() {
      return refused;
    },
    problems,
    async cut() {
      cutOff = true;
      dropAll();
    },
    async restore() {
      cutOff = false;
    },
    async close() {
      cutOff = true;
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
