import { createUserMemo } from '../src/cache/user-memo';
import type { CachedType } from '../src/cache/versioned-cache';
import type { UserDoc } from '../src/models';

function user(id: string, name: string): UserDoc {
  const now = new Date(0);
  return {
    _id: id,
    name,
    nameLower: name.toLowerCase(),
    email: `${id}@example.org`,
    avatar: null,
    status: 'ACTIVE',
    role: 'USER',
    createdAt: now,
    updatedAt: null,
    updatedAtSort: now,
    rev: 1,
  } as UserDoc;
}

/** A store of users whose reads are counted, and a version that tests move by hand. */
function fakeStore(maxEntries = 100) {
  const users = new Map<string, UserDoc>([
    ['a', user('a', 'Ann')],
    ['b', user('b', 'Bob')],
    ['c', user('c', 'Cy')],
  ]);
  const reads: string[][] = [];
  let version: string | Error = '1';
  const memo = createUserMemo({
    readVersion: async (type: CachedType) => {
      expect(type).toBe('User');
      if (version instanceof Error) throw version;
      return version;
    },
    findUsers: async (ids) => {
      reads.push([...ids]);
      return ids.flatMap((id) => (users.has(id) ? [{ ...users.get(id)! }] : []));
    },
    maxEntries,
  });
  return { memo, users, reads, setVersion: (v: string | Error) => (version = v) };
}

describe('user memo', () => {
  it('serves users remembered under the current version without reading the store again', async () => {
    const { memo, reads } = fakeStore();
    const first = await memo.load(['a', 'b', 'a'], await memo.version());
    expect([...first.keys()].sort()).toEqual(['a', 'b']);
    const again = await memo.load(['b', 'a', 'c'], await memo.version());
    expect(again.get('a')?.name).toBe('Ann');
    // Only the user not seen before was read the second time.
    expect(reads).toEqual([['a', 'b'], ['c']]);
  });

  it('reads the store again once a write moved the version, and serves the new document', async () => {
    const { memo, users, reads, setVersion } = fakeStore();
    await memo.load(['a'], await memo.version());
    users.set('a', user('a', 'Annabel'));
    // The old version still serves what it remembered: a read that began before the write returned.
    expect((await memo.load(['a'], '1')).get('a')?.name).toBe('Ann');
    setVersion('2');
    expect((await memo.load(['a'], await memo.version())).get('a')?.name).toBe('Annabel');
    expect(reads).toEqual([['a'], ['a']]);
  });

  it('forgets a deleted user once the version moved', async () => {
    const { memo, users, setVersion } = fakeStore();
    await memo.load(['b'], await memo.version());
    users.delete('b');
    setVersion('2');
    expect((await memo.load(['b'], await memo.version())).has('b')).toBe(false);
  });

  it('remembers nothing when the version cannot be read (Redis down): every load reads the store', async () => {
    const { memo, reads, setVersion } = fakeStore();
    setVersion(new Error('redis down'));
    const version = await memo.version();
    expect(version).toBeNull();
    await memo.load(['a'], version);
    await memo.load(['a'], version);
    expect(reads).toEqual([['a'], ['a']]);
  });

  it('keeps at most maxEntries users, dropping the least recently used', async () => {
    const { memo, reads } = fakeStore(2);
    await memo.load(['a'], '1');
    await memo.load(['b'], '1');
    await memo.load(['a'], '1'); // a is now the most recently used
    await memo.load(['c'], '1'); // evicts b
    await memo.load(['a'], '1');
    await memo.load(['b'], '1');
    expect(reads).toEqual([['a'], ['b'], ['c'], ['b']]);
  });

  it('hands out frozen documents, since every request shares them', async () => {
    const { memo } = fakeStore();
    const ann = (await memo.load(['a'], '1')).get('a')!;
    expect(Object.isFrozen(ann)).toBe(true);
    expect(() => {
      (ann as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });
});
