import { createRevocationWatch } from '../src/auth/token-revocations';

describe('token revocation watch', () => {
  it('fires every watcher of a token once on its notice, and none of another token', () => {
    const watch = createRevocationWatch(async (jtis) => jtis.map(() => false));
    const closed: string[] = [];
    watch.watch('t1', () => closed.push('a'));
    watch.watch('t1', () => closed.push('b'));
    watch.watch('t2', () => closed.push('c'));
    watch.revoked('t1');
    watch.revoked('t1');
    expect(closed).toEqual(['a', 'b']);
    expect(watch.size()).toBe(1);
  });

  it('forgets a watcher whose connection ended', () => {
    const watch = createRevocationWatch(async (jtis) => jtis.map(() => false));
    const onRevoked = jest.fn();
    const stopFirst = watch.watch('t1', onRevoked);
    const stopSecond = watch.watch('t1', onRevoked);
    stopFirst();
    watch.revoked('t1');
    expect(onRevoked).toHaveBeenCalledTimes(1);
    stopSecond();
    stopSecond();
    expect(watch.size()).toBe(0);
  });

  it('sweeps: asks about every watched token in batches and fires only the revoked ones', async () => {
    const revoked = new Set(['t3', 't777']);
    const asked: number[] = [];
    const watch = createRevocationWatch(async (jtis) => {
      asked.push(jtis.length);
      return jtis.map((jti) => revoked.has(jti));
    });
    const fired: string[] = [];
    for (let i = 0; i < 1200; i += 1) watch.watch(`t${i}`, () => fired.push(`t${i}`));
    await watch.sweep();
    expect(fired.sort()).toEqual(['t3', 't777']);
    expect(asked).toEqual([500, 500, 200]);
    expect(watch.size()).toBe(1198);
    await watch.sweep();
    expect(fired).toHaveLength(2);
  });

  it('runs one sweep at a time, and a failed sweep closes nothing', async () => {
    let release: (answers: boolean[]) => void = () => undefined;
    let fail = false;
    const check = jest.fn(
      (jtis: string[]) =>
        new Promise<boolean[]>((resolve, reject) => {
          if (fail) reject(new Error('redis down'));
          else release = () => resolve(jtis.map(() => true));
        }),
    );
    const watch = createRevocationWatch(check);
    const onRevoked = jest.fn();
    watch.watch('t1', onRevoked);
    fail = true;
    await expect(watch.sweep()).rejects.toThrow('redis down');
    expect(onRevoked).not.toHaveBeenCalled();
    fail = false;
    const first = watch.sweep();
    const second = watch.sweep();
    expect(second).toBe(first);
    release([true]);
    await first;
    expect(check).toHaveBeenCalledTimes(2);
    expect(onRevoked).toHaveBeenCalledTimes(1);
  });

  it('does not ask at all when nothing is watched', async () => {
    const check = jest.fn(async (jtis: string[]) => jtis.map(() => false));
    await createRevocationWatch(check).sweep();
    expect(check).not.toHaveBeenCalled();
  });
});
