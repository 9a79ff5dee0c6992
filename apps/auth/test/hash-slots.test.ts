import { createHashSlots, PasswordHashBusy } from '../src/crypto/hash-slots';

/** A task the test finishes by hand, so nothing depends on timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('password hash slots', () => {
  it('runs at most `concurrency` at once, queues up to `queue`, refuses beyond, and hands slots on in order', async () => {
    const slots = createHashSlots(2, 1);
    const gates = [gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      slots.run(async () => {
        started.push(i);
        await g.opened;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(slots.stats()).toEqual({ running: 2, waiting: 1 });
    await expect(slots.run(async () => 'fourth')).rejects.toBeInstanceOf(PasswordHashBusy);

    gates[0]!.open();
    expect(await runs[0]).toBe(0);
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    expect(slots.stats()).toEqual({ running: 2, waiting: 0 });

    gates[1]!.open();
    gates[2]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(slots.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot when the work fails', async () => {
    const slots = createHashSlots(1, 0);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(slots.stats()).toEqual({ running: 0, waiting: 0 });
    expect(await slots.run(async () => 'next')).toBe('next');
  });
});
