import type { WebSocket } from 'ws';
import { CoalescingSender, FlushSchedule } from '../src/subscriptions/ws-transport';

/** A stand-in for a `ws` socket and its TCP side: records frames, and what was corked together. */
function fakeSocket() {
  const writes: { data: string; corked: boolean }[] = [];
  const callbacks: (() => void)[] = [];
  let corks = 0;
  const socket = {
    OPEN: 1,
    readyState: 1,
    bufferedAmount: 0,
    send(data: string, cb?: (err?: Error) => void) {
      writes.push({ data, corked: corks > 0 });
      if (cb) callbacks.push(() => cb());
    },
  };
  const tcp = {
    cork: () => (corks += 1),
    uncork: () => (corks -= 1),
  };
  return { socket, tcp, writes, callbacks, corks: () => corks };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CoalescingSender', () => {
  it('writes what one turn sent in one corked flush, in order, and does not hold the sender below the high-water mark', async () => {
    const fake = fakeSocket();
    const sender = new CoalescingSender(fake.socket as unknown as WebSocket, fake.tcp, new FlushSchedule(), 1_000);
    expect(sender.send('a')).toBeUndefined();
    expect(sender.send('b')).toBeUndefined();
    expect(sender.send('c')).toBeUndefined();
    expect(fake.writes).toEqual([]);
    await turn();
    expect(fake.writes).toEqual([
      { data: 'a', corked: true },
      { data: 'b', corked: true },
      { data: 'c', corked: true },
    ]);
    expect(fake.corks()).toBe(0);
    sender.send('d');
    await turn();
    expect(fake.writes.map((w) => w.data)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('makes the sender wait above the high-water mark until the kernel took the flush', async () => {
    const fake = fakeSocket();
    const sender = new CoalescingSender(fake.socket as unknown as WebSocket, fake.tcp, new FlushSchedule(), 10);
    expect(sender.send('12345')).toBeUndefined();
    const waiting = sender.send('67890');
    expect(waiting).toBeInstanceOf(Promise);
    let resumed = false;
    void waiting?.then(() => (resumed = true));
    await turn();
    expect(fake.writes.map((w) => w.data)).toEqual(['12345', '67890']);
    await Promise.resolve();
    expect(resumed).toBe(false);
    // The write callback of the flush's last frame: the kernel has it all.
    for (const done of fake.callbacks) done();
    await waiting;
    expect(resumed).toBe(true);
  });

  it('tells drain listeners once the kernel took a flush and the socket is below the mark', async () => {
    const fake = fakeSocket();
    const sender = new CoalescingSender(fake.socket as unknown as WebSocket, fake.tcp, new FlushSchedule(), 10);
    const drained = jest.fn();
    const stop = sender.onDrain(drained);
    sender.send('0123456789');
    expect(sender.blocked).toBe(true);
    await turn();
    expect(drained).not.toHaveBeenCalled();
    // Taken by the kernel, but the socket still holds bytes over the mark: not drained yet.
    fake.socket.bufferedAmount = 50;
    fake.callbacks.shift()!();
    expect(drained).not.toHaveBeenCalled();
    fake.socket.bufferedAmount = 0;
    sender.send('x');
    await turn();
    fake.callbacks.shift()!();
    expect(drained).toHaveBeenCalledTimes(1);
    stop();
    sender.send('y');
    await turn();
    fake.callbacks.shift()!();
    expect(drained).toHaveBeenCalledTimes(1);
  });

  it('counts bytes the socket still holds towards the mark', () => {
    const fake = fakeSocket();
    fake.socket.bufferedAmount = 2_000;
    const sender = new CoalescingSender(fake.socket as unknown as WebSocket, fake.tcp, new FlushSchedule(), 1_000);
    expect(sender.send('x')).toBeInstanceOf(Promise);
  });

  it('writes nothing to a socket that closed before its flush, and releases whoever waited', async () => {
    const fake = fakeSocket();
    const sender = new CoalescingSender(fake.socket as unknown as WebSocket, fake.tcp, new FlushSchedule(), 1);
    const waiting = sender.send('late');
    fake.socket.readyState = 3;
    await turn();
    await waiting;
    expect(fake.writes).toEqual([]);
    expect(sender.send('after close')).toBeUndefined();
    await turn();
    expect(fake.writes).toEqual([]);
  });

  it('flush() writes what is pending at once (before a close frame)', () => {
    const fake = fakeSocket();
    const sender = new CoalescingSender(fake.socket as unknown as WebSocket, fake.tcp, new FlushSchedule(), 1_000);
    sender.send('last words');
    sender.flush();
    expect(fake.writes).toEqual([{ data: 'last words', corked: true }]);
  });

  it('reports each write with the number of messages it carried', async () => {
    const fake = fakeSocket();
    const writes: number[] = [];
    const sender = new CoalescingSender(
      fake.socket as unknown as WebSocket,
      fake.tcp,
      new FlushSchedule(),
      1_000,
      (n) => writes.push(n),
    );
    sender.send('a');
    sender.send('b');
    await turn();
    sender.send('c');
    await turn();
    expect(writes).toEqual([2, 1]);
  });
});

describe('FlushSchedule', () => {
  it('flushes every socket that had messages in a turn together on the next turn, each in one corked write', async () => {
    const schedule = new FlushSchedule();
    const sockets = Array.from({ length: 3 }, () => fakeSocket());
    const writes: number[] = [];
    const senders = sockets.map(
      (fake) =>
        new CoalescingSender(fake.socket as unknown as WebSocket, fake.tcp, schedule, 1_000_000, (n) => writes.push(n)),
    );
    senders[0]!.send('a1');
    senders[2]!.send('c1');
    senders[0]!.send('a2');
    expect(writes).toEqual([]);
    await turn();
    expect(sockets.map((fake) => fake.writes.map((w) => w.data))).toEqual([['a1', 'a2'], [], ['c1']]);
    expect(writes).toEqual([2, 1]);
    senders[1]!.send('b1');
    await turn();
    expect(sockets[1]!.writes.map((w) => w.data)).toEqual(['b1']);
    expect(writes).toEqual([2, 1, 1]);
  });
});
