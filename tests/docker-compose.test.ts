import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { parse } from 'yaml';
import type { ZodTypeAny } from 'zod';
import { authConfigShape } from '../apps/auth/src/config';
import { appConfigShape } from '@platform/testing';
import SERVICES from '../deploy/helm/platform/services.json';

interface ComposeService {
  image?: string;
  build?: { context?: string; target?: string };
  command?: string[] | string;
  environment?: Record<string, string> | string[];
  healthcheck?: unknown;
  depends_on?: unknown;
  ports?: unknown[];
  expose?: unknown[];
  restart?: string;
  volumes?: string[];
}

const repo = path.join(__dirname, '..');
const compose = parse(fs.readFileSync(path.join(repo, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};

/** One stage of the Dockerfile: its instructions (continuation lines joined) and the stage it builds on, if any. */
interface Stage {
  name: string;
  parent?: string;
  instructions: string[];
}

function dockerfileStages(text: string): Map<string, Stage> {
  const stages = new Map<string, Stage>();
  let current: Stage | undefined;
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of lines) {
    const from = /^FROM\s+(\S+)\s+AS\s+(\S+)$/i.exec(line);
    if (from) {
      current = { name: from[2]!, ...(stages.has(from[1]!) ? { parent: from[1]! } : {}), instructions: [] };
      stages.set(current.name, current);
    } else {
      current?.instructions.push(line);
    }
  }
  return stages;
}

const stages = dockerfileStages(fs.readFileSync(path.join(repo, 'Dockerfile'), 'utf8'));

/** A target's instructions, its ancestors' first. */
function instructionsOf(target: string): string[] {
  const stage = stages.get(target);
  if (!stage) throw new Error(`no stage ${target} in the Dockerfile`);
  return [...(stage.parent ? instructionsOf(stage.parent) : []), ...stage.instructions];
}

/** The Debian packages a target installs with apt-get (its ancestors' included). */
function packagesOf(target: string): Set<string> {
  const packages = new Set<string>();
  for (const instruction of instructionsOf(target)) {
    for (const [, list] of instruction.matchAll(/apt-get install ((?:-\S+\s+)*[^&]+)/g)) {
      for (const word of list!.split(/\s+/)) if (word !== '' && !word.startsWith('-')) packages.add(word);
    }
  }
  return packages;
}

function targetOf(service: string): string {
  const target = compose.services[service]?.build?.target;
  if (!target) throw new Error(`${service} names no build target`);
  return target;
}

/** Variables an app cannot boot without: those whose schema rejects "unset". */
function requiredVariables(shape: Record<string, ZodTypeAny>): string[] {
  return Object.entries(shape)
    .filter(([, schema]) => !schema.safeParse(undefined).success)
    .map(([name]) => name);
}

function environmentOf(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(
    env.map((entry) => {
      const [key, ...rest] = entry.split('=');
      return [key ?? '', rest.join('=')];
    }),
  );
}

/** An entry of the service manifest (deploy/helm/platform/services.json), the one list of the apps. */
type Service = (typeof SERVICES)[number];
type Shape = Record<string, ZodTypeAny>;

/** The apps compose must run: the service manifest's names. */
const apps = SERVICES.map((service) => service.name);

/** The app a compose service runs (`node apps/<app>/dist/main.js`); the stores and the seed run none. */
function appOf(service: ComposeService): string | undefined {
  const command = Array.isArray(service.command) ? service.command.join(' ') : (service.command ?? '');
  return /^node apps\/([a-z0-9-]+)\/dist\/main\.js$/.exec(command)?.[1];
}

/** The variable that carries an internal app's address, as `npm start` names it (scripts/start.mjs): AUTH_URL, CONTENT_URL. */
const urlVariableOf = (app: string): string => `${app.toUpperCase().replaceAll('-', '_')}_URL`;

/** Every app waits for the three stores to be healthy (compose starts no app against a store still booting). */
const STORES = ['kafka', 'mongo', 'redis'];

/**
 * Where docker-compose.yml and the service manifest disagree. Compose cannot read the manifest, so this is what
 * keeps its app services in step with it: the same apps; each listening on its manifest port (PORT, the
 * healthcheck, published on the host when it serves `public`, only exposed on the compose network otherwise);
 * each internal app reached at `http://<name>:<port>` under its `<NAME>_URL`; each app waiting for the stores and
 * for every internal app whose `<NAME>_URL` its configuration shape reads.
 */
function composeDisagreements(
  manifest: Service[],
  services: Record<string, ComposeService>,
  shapes: Map<string, Shape>,
): string[] {
  const problems: string[] = [];
  const composed = new Map(
    Object.entries(services).flatMap(([name, service]) => {
      const app = appOf(service);
      return app ? [[name, { app, service }] as const] : [];
    }),
  );
  for (const { name } of manifest)
    if (!composed.has(name)) problems.push(`${name}: in the service manifest, not in docker-compose.yml`);
  for (const [name, { app }] of composed) {
    if (!manifest.some((service) => service.name === name))
      problems.push(`${name}: in docker-compose.yml, not in the service manifest`);
    if (app !== name) problems.push(`${name}: runs apps/${app}, not apps/${name}`);
  }
  const internal = manifest.filter((service) => service.serves === 'internal');
  const entry = manifest.find((service) => service.serves === 'public');
  for (const { name, port, serves } of manifest) {
    const service = composed.get(name)?.service;
    if (!service) continue;
    const env = environmentOf(service);
    if (env.PORT !== String(port)) problems.push(`${name}: PORT ${env.PORT}, the manifest says ${port}`);
    if (!JSON.stringify(service.healthcheck ?? null).includes(`http://127.0.0.1:${port}/healthz`)) {
      problems.push(`${name}: its healthcheck does not ask port ${port}`);
    }
    const published = (service.ports ?? []).map(String);
    const exposed = (service.expose ?? []).map(String);
    if (serves === 'public' && !published.includes(`${port}:${port}`))
      problems.push(`${name}: serves public but does not publish ${port}:${port}`);
    if (serves !== 'public' && (published.length > 0 || !exposed.includes(String(port)))) {
      problems.push(
        `${name}: serves ${serves}: publishes ${JSON.stringify(published)}, exposes ${JSON.stringify(exposed)}; expected only ${port} exposed`,
      );
    }
    if (entry && env.PUBLIC_URL !== undefined && env.PUBLIC_URL !== `http://localhost:${entry.port}`) {
      problems.push(`${name}: PUBLIC_URL ${env.PUBLIC_URL}, the entry point is ${entry.name} on ${entry.port}`);
    }
    for (const other of internal) {
      const url = env[urlVariableOf(other.name)];
      if (url !== undefined && url !== `http://${other.name}:${other.port}`) {
        problems.push(
          `${name}: ${urlVariableOf(other.name)} ${url}, the manifest says http://${other.name}:${other.port}`,
        );
      }
    }
    const shape = shapes.get(name) ?? {};
    const expected = [
      ...STORES,
      ...internal.filter((other) => urlVariableOf(other.name) in shape).map((other) => other.name),
    ].sort();
    const dependsOn = (service.depends_on ?? {}) as Record<string, { condition?: string }>;
    const actual = Object.keys(dependsOn).sort();
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      problems.push(`${name}: depends on ${actual.join(', ')}; expected ${expected.join(', ')}`);
    for (const [dependency, { condition }] of Object.entries(dependsOn)) {
      if (condition !== 'service_healthy')
        problems.push(`${name}: waits for ${dependency} to be ${condition}, not service_healthy`);
    }
  }
  return problems;
}

/** The configuration shapes of the manifest's apps, loaded before the tests. */
const shapes = new Map<string, Shape>();
beforeAll(async () => {
  for (const app of apps) shapes.set(app, await appConfigShape(app));
});

/** A copy of the service manifest, written to a temporary file and read back, as a changed manifest would be read. */
function manifestCopy(change: (services: Service[]) => Service[]): Service[] {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compose-manifest-')), 'services.json');
  fs.writeFileSync(file, JSON.stringify(change(structuredClone(SERVICES)), null, 2));
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Service[];
}

describe('docker-compose.yml', () => {
  it('runs the three dependencies and the four apps', () => {
    expect(apps.length).toBeGreaterThanOrEqual(4);
    for (const name of ['redis', 'kafka', 'mongo', ...apps]) {
      expect(compose.services).toHaveProperty(name);
    }
  });

  describe("its apps are the service manifest's (deploy/helm/platform/services.json)", () => {
    it('the same apps, ports, addresses and dependencies', () => {
      expect(composeDisagreements(SERVICES, compose.services, shapes)).toEqual([]);
    });

    it('a service missing from the manifest (a temporary copy) is a disagreement, and so is one missing from compose', () => {
      const withoutContent = manifestCopy((services) => services.filter((service) => service.name !== 'content'));
      expect(composeDisagreements(withoutContent, compose.services, shapes)).toEqual(
        expect.arrayContaining([
          'content: in docker-compose.yml, not in the service manifest',
          // The gateway reads CONTENT_URL, but content is no internal app of this manifest: it should not wait for it.
          'gateway: depends on auth, content, kafka, mongo, redis; expected auth, kafka, mongo, redis',
        ]),
      );
      const added = manifestCopy((services) => [
        ...services,
        { name: 'search', valuesKey: 'search', port: 8084, metricsPort: 9468, serves: 'internal' },
      ]);
      expect(composeDisagreements(added, compose.services, shapes)).toEqual([
        'search: in the service manifest, not in docker-compose.yml',
      ]);
    });

    it('a port that differs is a disagreement', () => {
      const moved = manifestCopy((services) =>
        services.map((service) => (service.name === 'auth' ? { ...service, port: 8091 } : service)),
      );
      expect(composeDisagreements(moved, compose.services, shapes)).toEqual(
        expect.arrayContaining([
          'auth: PORT 8081, the manifest says 8091',
          'auth: its healthcheck does not ask port 8091',
          'gateway: AUTH_URL http://auth:8081, the manifest says http://auth:8091',
        ]),
      );
    });
  });

  it.each(apps)('sets every variable %s requires, and each has a healthcheck', (app) => {
    const service = compose.services[app]!;
    const env = environmentOf(service);
    const required = requiredVariables(shapes.get(app)!);
    expect(required.length).toBeGreaterThan(0);
    for (const name of required) expect(env[name]).toEqual(expect.any(String));
    expect(service.healthcheck).toBeDefined();
  });

  it('gives values the apps accept', () => {
    for (const app of apps) {
      const env = environmentOf(compose.services[app]!);
      for (const [name, schema] of Object.entries(shapes.get(app)!)) {
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
          if (!member.initiated)
            throw Object.assign(new Error('no replset config has been received'), {
              code: 94,
              codeName: 'NotYetInitialized',
            });
          return { ok: 1 };
        },
        initiate: (config: unknown) => {
          initiated.push(config);
          return { ok: 1 };
        },
      };
      const db = {
        hello: () => ({ isWritablePrimary: member.primary, setName: member.initiated ? REPLICA_SET : undefined }),
      };
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
      expect(healthcheck({ initiated: true, primary: true, statusError: { codeName: 'Unauthorized' } })).toEqual({
        healthy: false,
        initiated: [],
      });
    });

    it.each(apps)('%s reaches it as replica set rs0 once it is healthy', (app) => {
      const service = compose.services[app]!;
      const url = new URL(environmentOf(service).MONGO_URL!);
      expect(url.protocol).toBe('mongodb:');
      expect(url.host).toBe('mongo:27017'); // the member's name in the replica set configuration
      expect(url.searchParams.get('replicaSet')).toBe(REPLICA_SET);
      expect(url.searchParams.has('directConnection')).toBe(false);
      expect(service.depends_on).toMatchObject({ mongo: { condition: 'service_healthy' } });
    });
  });

  describe('images: each carries what its app runs', () => {
    it('the synthesis-worker image has ffmpeg (voice-analysis jobs decode cloning samples; Opus) and no Praat (the voice colour runs in process); the gateway, which analyses nothing, has no ffmpeg', () => {
      expect(packagesOf(targetOf('gateway'))).not.toContain('ffmpeg');
      expect(packagesOf(targetOf('synthesis-worker'))).toContain('ffmpeg');
      expect(packagesOf(targetOf('synthesis-worker'))).not.toContain('praat');
    });

    it('the worker image has the speech engine and the MP3 encoder', () => {
      const worker = packagesOf(targetOf('synthesis-worker'));
      expect(worker).toContain('espeak-ng');
      expect(worker).toContain('lame');
    });

    it('only the worker image has Python (eSpeak NG word timing); gateway, auth, content and seed images have none', () => {
      expect(packagesOf(targetOf('synthesis-worker'))).toContain('python3');
      for (const service of ['gateway', 'auth', 'content', 'seed']) {
        expect([...packagesOf(targetOf(service))].filter((name) => name.startsWith('python'))).toEqual([]);
      }
    });

    it('the worker image carries the neural voice, fetched at build time, where its PIPER_VOICES_DIR points', () => {
      const dir = environmentOf(compose.services['synthesis-worker']!).PIPER_VOICES_DIR;
      expect(dir).toMatch(/^\//);
      const voice = /PIPER_VOICE = '([^']+)'/.exec(
        fs.readFileSync(path.join(repo, 'scripts', 'fetch-voices.mjs'), 'utf8'),
      )![1]!;
      const worker = instructionsOf(targetOf('synthesis-worker'));
      const copy = worker.find((line) => /^COPY\s+--from=(\S+)\s/.test(line) && line.endsWith(` ${dir}`));
      expect(copy).toBeDefined();
      const from = /^COPY\s+--from=(\S+)\s+(\S+)/.exec(copy!)!;
      expect(from[2]).toBe(dir);
      // The stage it is copied from fetches it there and fails the build if the model is missing.
      const fetched = instructionsOf(from[1]!).find((line) => line.includes('scripts/fetch-voices.mjs'));
      expect(fetched).toContain(`PIPER_VOICES_DIR=${dir} `);
      expect(fetched).toContain(`test -s ${dir}/${voice}.onnx`);
      expect(fetched).toContain(`test -s ${dir}/${voice}.onnx.json`);
    });

    it('installs onnxruntime-node without its download (ONNXRUNTIME_NODE_INSTALL=skip before npm install; not npm ci, which refuses the lock)', () => {
      const build = instructionsOf('build');
      const skip = build.findIndex((line) => /^ENV\s+.*\bONNXRUNTIME_NODE_INSTALL=skip\b/.test(line));
      const install = build.findIndex((line) => /\bnpm install\b/.test(line));
      expect(build.some((line) => /\bnpm ci\b/.test(line))).toBe(false);
      expect(skip).toBeGreaterThanOrEqual(0);
      expect(install).toBeGreaterThan(skip);
    });
  });

  it.each(apps)('%s serves metrics on the internal port 9464, not published on the host', (app) => {
    const service = compose.services[app]!;
    expect(environmentOf(service).METRICS_PORT).toBe('9464');
    expect(JSON.stringify(service.ports ?? [])).not.toContain('9464');
  });

  describe('seed: the development credentials npm start creates', () => {
    const seed = compose.services.seed!;

    it('runs scripts/post-start.mjs once, after auth is healthy, from an image that has it', () => {
      expect(seed.command).toEqual(['node', 'scripts/post-start.mjs']);
      expect(seed.restart).toBe('no');
      expect(seed.depends_on).toMatchObject({ auth: { condition: 'service_healthy' } });
      expect(instructionsOf(targetOf('seed')).some((line) => /^COPY\s.*scripts\/post-start\.mjs/.test(line))).toBe(
        true,
      );
    });

    it("runs auth's command line with auth's own settings, and names the gateway's public URL as the issuer", () => {
      const env = environmentOf(seed);
      const auth = environmentOf(compose.services.auth!);
      for (const name of requiredVariables(authConfigShape)) expect([name, env[name]]).toEqual([name, auth[name]]);
      expect(env.PUBLIC_URL).toBe(environmentOf(compose.services.gateway!).PUBLIC_URL);
      expect(env.AUTH_URL).toBe(`http://auth:${auth.PORT}`);
    });

    it('keeps the credentials in a named volume, so the next `up` shows the same ones', () => {
      const file = environmentOf(seed).DEV_CREDENTIALS_FILE!;
      const mounts = (seed.volumes ?? []).map((entry) => entry.split(':'));
      const mount = mounts.find(([, target]) => file.startsWith(`${target}/`));
      expect(mount).toBeDefined();
      expect(compose.volumes).toHaveProperty(mount![0]!);
    });
  });

  it('content answers GraphQL introspection in the tour although the images run with NODE_ENV=production', () => {
    expect(instructionsOf(targetOf('content')).some((line) => /^ENV\s.*\bNODE_ENV=production\b/.test(line))).toBe(true);
    expect(environmentOf(compose.services.content!).GRAPHQL_INTROSPECTION).toBe('true');
  });
});
