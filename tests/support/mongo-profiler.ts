/** A database as the MongoDB driver's `Db` offers it (a structural type: the driver is not a dependency here). */
export interface ProfiledDatabase {
  command(command: Record<string, unknown>): Promise<unknown>;
  collection(name: string): { drop(): Promise<unknown> };
}

/**
 * Runs `run` with MongoDB's database profiler at level 2 on a cleared `system.profile` (every
 * operation on this database recorded, with its plan), and turns it off again. Profiling is per
 * database, so tests on databases of their own do not see each other's operations.
 */
export async function withProfiler(db: ProfiledDatabase, run: () => Promise<unknown>): Promise<void> {
  await db.command({ profile: 0 });
  await db
    .collection('system.profile')
    .drop()
    .catch(() => undefined);
  await db.command({ profile: 2 });
  try {
    await run();
  } finally {
    await db.command({ profile: 0 });
  }
}
