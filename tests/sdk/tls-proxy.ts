import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';

export interface TlsProxy {
  /** `https://localhost:<port>`: the platform behind TLS, as the hosted API is. */
  url: string;
  /** The self-signed certificate (PEM file) a client must trust (`SSL_CERT_FILE`). */
  certFile: string;
  close(): Promise<void>;
}

/**
 * A TLS terminator in front of `target` (a plain HTTP origin), with a certificate for `localhost`
 * made by openssl for this run. The Python SDK's WebSocket helper (`convert_realtime`) always
 * connects with `wss://`, whatever the scheme of its base URL, so it can only be run unchanged
 * against a TLS endpoint.
 */
export async function startTlsProxy(target: string): Promise<TlsProxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ]);
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (clear) => {
    const upstream = net.connect(Number(port), hostname);
    for (const s of [clear, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        clear.destroy();
        upstream.destroy();
      });
    }
    clear.pipe(upstream).pipe(clear);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `https://localhost:${address.port}`,
    certFile,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
