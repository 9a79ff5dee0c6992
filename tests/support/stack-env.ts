import fs from 'node:fs';
import path from 'node:path';

export interface StackEnv {
  REDIS_URL: string;
  KAFKA_BROKERS: string;
  MONGO_URL: string;
}

const KEYS = ['REDIS_URL', 'KAFKA_BROKERS', 'MONGO_URL'] as const;

function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'tsconfig.base.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('repository root not found');
    dir = parent;
  }
  return dir;
}

/**
 * Where the running stack answers: the environment first (CI with external services, or
 * testcontainers), otherwise the file `scripts/stack.mjs up` writes.
 */
export function stackEnv(): StackEnv {
  const fromFile: Record<string, string> = {};
  const file = path.join(process.env.STACK_DIR ?? path.join(repoRoot(), '.stack'), 'stack.env');
  if (fs.existsSync(file)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
      if (match?.[1] && match[2] !== undefined) fromFile[match[1]] = match[2];
    }
  }
  const env: Partial<StackEnv> = {};
  for (const key of KEYS) {
    const value = process.env[key] ?? fromFile[key];
    if (!value) throw new Error(`${key} is not set and ${file} does not name it: run "node scripts/stack.mjs up"`);
    env[key] = value;
  }
  return env as StackEnv;
}

export { repoRoot };
