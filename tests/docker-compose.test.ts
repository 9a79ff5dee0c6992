import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { ZodTypeAny } from 'zod';
import { authConfigShape } from '../apps/auth/src/config';
import { contentConfigShape } from '../apps/content/src/config';
import { gatewayConfigShape } from '../apps/gateway/src/config';
import { workerConfigShape } from '../apps/synthesis-worker/src/config';

interface ComposeService {
  environment?: Record<string, string> | string[];
  healthcheck?: unknown;
  depends_on?: unknown;
}

const compose = parse(fs.readFileSync(path.join(__dirname, '..', 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};

/** Variables an app cannot boot without: those whose schema rejects "unset". */
function requiredVariables(shape: Record<string, ZodTypeAny>): string[] {
  return Object.entries(shape)
    .filter(([, schema]) => !schema.safeParse(undefined).success)
    .map(([name]) => name);
}

function environmentOf(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(env.map((entry) => {
    const [key, ...rest] = entry.split('=');
    return [key ?? '', rest.join('=')];
  }));
}

const apps: Array<[string, Record<string, ZodTypeAny>]> = [
  ['auth', authConfigShape],
  ['content', contentConfigShape],
  ['gateway', gatewayConfigShape],
  ['synthesis-worker', workerConfigShape],
];

describe('docker-compose.yml', () => {
  it('runs the three dependencies and the four apps', () => {
    for (const name of ['redis', 'kafka', 'mongo', ...apps.map(([app]) => app)]) {
      expect(compose.services).toHaveProperty(name);
    }
  });

  it.each(apps)('sets every variable %s requires, and each has a healthcheck', (app, shape) => {
    const service = compose.services[app]!;
    const env = environmentOf(service);
    const required = requiredVariables(shape);
    expect(required.length).toBeGreaterThan(0);
    for (const name of required) expect(env[name]).toEqual(expect.any(String));
    expect(service.healthcheck).toBeDefined();
  });

  it('gives values the apps accept', () => {
    for (const [app, shape] of apps) {
      const env = environmentOf(compose.services[app]!);
      for (const [name, schema] of Object.entries(shape)) {
        if (env[name] === undefined) continue;
        const result = schema.safeParse(env[name]);
        if (!result.success) throw new Error(`${app}: ${name}=${env[name]} is rejected: ${result.error.message}`);
      }
    }
  });
});
