/**
 * Jest globalTeardown: stops the containers global-setup.ts started (only with TEST_INFRA=containers).
 * Testcontainers' reaper (Ryuk) removes them anyway if this never runs.
 */
import type { StartedTestContainer } from 'testcontainers';

declare global {
  var __TEST_CONTAINERS__: StartedTestContainer[] | undefined;
}

export default async function globalTeardown(): Promise<void> {
  if (process.env.TEST_INFRA !== 'containers') return;
  const containers = globalThis.__TEST_CONTAINERS__ ?? [];
  globalThis.__TEST_CONTAINERS__ = undefined;
  await Promise.all(containers.map((c) => c.stop()));
}
