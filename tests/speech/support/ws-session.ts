import WebSocket from 'ws';

/** A stream-input WebSocket with everything it received, for tests to inspect after the fact. */
export interface Session {
  ws: WebSocket;
  binary: Buffer[];
  texts: string[];
  closed: Promise<{ code: number; reason: string }>;
  opened: Promise<void>;
}

export function connectSession(url: string, headers: Record<string, string> = {}): Session {
  const ws = new WebSocket(url, { headers });
  const binary: Buffer[] = [];
  const texts: string[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) =>
    isBinary ? binary.push(Buffer.from(data)) : texts.push(data.toString()),
  );
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, binary, texts, closed, opened };
}

/** The first speech-shaped error message the session received. */
export const errorOf = (s: Session) =>
  s.texts.map((t) => JSON.parse(t) as { detail?: { status: string; message: string } }).find((m) => m.detail)?.detail;
