import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { parse } from 'yaml';
import type { ZodTypeAny } from 'zod';
import { authConfigShape } from '../apps/auth/src/config';
import { contentConfigShape } from '../apps/content/src/config';
import { gatewayConfigShape } from '../apps/gateway/src/config';
import { workerConfigShape } from '../apps/synthesis-worker/src/config';

interface ComposeService {
  image?: string;
  command?: string[] | string;
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

  describe('mongo: a single-node replica set the apps can use transactions and change streams on', () => {
    const mongo = compose.services.mongo!;
    const REPLICA_SET = 'rs0';

    it('runs mongod 7 or later with --replSet rs0, on all interfaces, with a bounded WiredTiger cache', () => {
      expect(mongo.image).toMatch(/^mongo:(\d+)/);
      expect(Number(/^mongo:(\d+)/.exec(mongo.image!)![1])).toBeGreaterThanOrEqual(7);
      expect(Array.isArray(mongo.command)).toBe(true);
      const command = mongo.command as string[];
      expect(command[0]).toBe('mongod');
      expect(command[command.indexOf('--replSet') + 1]).toBe(REPLICA_SET);
      expect(command).toContain('--bind_ip_all');
      expect(command).toContain('--wiredTigerCacheSizeGB');
      expect(Number(command[command.indexOf('--wiredTigerCacheSizeGB') + 1])).toBeGreaterThan(0);
    });

    /** The healthcheck's mongosh script, run against stand-ins for mongosh's `rs` and `db` helpers. */
    function healthcheck(member: { initiated: boolean; primary: boolean; statusError?: { codeName: string } }) {
      const test = (mongo.healthcheck as { test?: unknown }).test;
      expect(Array.isArray(test)).toBe(true);
      const argv = test as string[];
      expect(argv.slice(0, 2)).toEqual(['CMD', 'mongosh']);
      expect(argv).toContain('--eval');
      const script = argv[argv.indexOf('--eval') + 1]!;
      const initiated: unknown[] = [];
      const rs = {
        status: () => {
          if (member.statusError) throw Object.assign(new Error('status failed'), member.statusError);
          if (!member.initiated) throw Object.assign(new Error('no replset config has been received'), { code: 94, codeName: 'NotYetInitialized' });
          return { ok: 1 };
        },
        initiate: (config: unknown) => {
          initiated.push(config);
          return { ok: 1 };
        },
      };
      const db = { hello: () => ({ isWritablePrimary: member.primary, setName: member.initiated ? REPLICA_SET : undefined }) };
      let healthy: boolean;
      try {
        vm.runInNewContext(script, { rs, db });
        healthy = true;
      } catch {
        healthy = false; // mongosh --eval exits non-zero on an uncaught error: the check fails
      }
      return { healthy, initiated };
    }

    it('its healthcheck initiates rs0 with the member mongo:27017 once, and is healthy only on the PRIMARY', () => {
      const first = healthcheck({ initiated: false, primary: false });
      expect(first.initiated).toEqual([{ _id: REPLICA_SET, members: [{ _id: 0, host: 'mongo:27017' }] }]);
      expect(first.healthy).toBe(false); // just initiated: not PRIMARY until the election
      expect(healthcheck({ initiated: true, primary: false })).toEqual({ healthy: false, initiated: [] }); // SECONDARY / electing
      expect(healthcheck({ initiated: true, primary: true })).toEqual({ healthy: true, initiated: [] });
      // Any other failure of replSetGetStatus is not a reason to (re)initiate.
      expect(healthcheck({ initiated: true, primary: true, statusError: { codeName: 'Unauthorized' } })).toEqual({ healthy: false, initiated: [] });
    });

    it.each(apps.map(([app]) => app))('%s reaches it as replica set rs0 once it is healthy', (app) => {
      const service = compose.services[app]!;
      const url = new URL(environmentOf(service).MONGO_URL!);
      expect(url.protocol).toBe('mongodb:');
      expect(url.host).toBe('mongo:27017'); // the member's name in the replica set configuration
      expect(url.searchParams.get('replicaSet')).toBe(REPLICA_SET);
      expect(url.searchParams.has('directConnection')).toBe(false);
      expect(service.depends_on).toMatchObject({ mongo: { condition: 'service_healthy' } });
    });
  });
});
