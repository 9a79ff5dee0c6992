import path from 'node:path';
import type { ZodTypeAny } from 'zod';

/** The repository's root, from this file's place in it. */
const ROOT = path.resolve(__dirname, '../..');

/**
 * An app's configuration shape: the one `…ConfigShape` its `src/config.ts` exports (every app of the
 * service manifest has one), loaded by name so a new app needs no import here.
 */
export async function appConfigShape(app: string): Promise<Record<string, ZodTypeAny>> {
  const exports = (await import(path.join(ROOT, 'apps', app, 'src', 'config'))) as Record<string, unknown>;
  const shapes = Object.entries(exports).filter(([name]) => name.endsWith('ConfigShape'));
  if (shapes.length !== 1) throw new Error(`apps/${app}/src/config.ts exports ${shapes.length} …ConfigShape, not one`);
  return shapes[0]![1] as Record<string, ZodTypeAny>;
}
