// Full garbage collections on demand in the app processes, through the V8 inspector each soak app is
// started with (`--inspect=127.0.0.1:0`: loopback, a port of its own). Memory read right after one is
// what the process still holds; read at any other moment it includes garbage V8 has not collected yet:
// the old generation of a busy app climbs tens of MB between its own full collections (40 MB over about
// 90 s for the gateway at 10 operations/s), which no least-squares fit can tell from a leak within minutes.
import WebSocket from 'ws';

/** The inspector's WebSocket address, from the "Debugger listening on ws://…" line Node prints at start. */
export function inspectorUrl(output: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
}

export interface Inspector {
  /** Resolves once V8 has finished a full (mark-compact) collection of the whole heap. */
  collectGarbage(): Promise<void>;
  close(): void;
}

export async function connectInspector(url: string): Promise<Inspector> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  // A process stopped under the sampler closes its socket; the call then fails (below), the error is not the socket's to throw.
  ws.on('error', () => undefined);
  const pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  let nextId = 0;
  ws.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number; error?: { message: string } };
    const call = message.id === undefined ? undefined : pending.get(message.id);
    if (!call) return;
    pending.delete(message.id!);
    if (message.error) call.reject(new Error(message.error.message));
    else call.resolve();
  });
  ws.on('close', () => {
    for (const call of pending.values()) call.reject(new Error('the inspector closed'));
    pending.clear();
  });
  return {
    collectGarbage: () =>
      new Promise<void>((resolve, reject) => {
        const id = (nextId += 1);
        pending.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
      }),
    close: () => ws.close(),
  };
}
