import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Issuer, type BaseClient } from 'openid-client';
import WebSocket from 'ws';
import { parse, parseAllDocuments } from 'yaml';
import { eventually, freePort, stackEnv } from '@platform/testing';
import {
  INTERNAL_SECRET,
  createApiKey,
  registerAccount,
  startPlatform,
  type Account,
  type Platform,
} from '../gateway/platform';
import { collect, wsClient } from '../gateway/subscriptions-client';

/**
 * The operators' files against the running apps: deploy/prometheus/alerts.yml passes `promtool check
 * rules`, and Debian's Prometheus, scraping the four apps' METRICS_PORT listeners every second, has data
 * for every query of deploy/grafana/platform-dashboard.json, every alert expression (each queried
 * without its threshold) and the Helm chart's KEDA trigger after a small tour of the platform through its
 * public gateway. Rendering the chart builds helm on a machine that has none yet (scripts/deploy-check.mjs):
 * minutes, once.
 */
jest.setTimeout(1_200_000);

const ROOT = path.resolve(__dirname, '../..');
const ALERTS = path.join(ROOT, 'deploy/prometheus/alerts.yml');
const DASHBOARD = path.join(ROOT, 'deploy/grafana/platform-dashboard.json');
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const run = promisify(execFile);

interface Rule {
  alert: string;
  expr: string;
}

/** Every PromQL query of the dashboard, with Grafana's `$__rate_interval` given a value. */
function dashboardQueries(): { name: string; query: string }[] {
  const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target, i) => ({
      name: `${panel.title} [${i}]`,
      query: target.expr.replaceAll('$__rate_interval', '1m'),
    })),
  );
}

/** Every alert rule's expression parts (joined with `and`), each without its `<comparison> <number>`. */
function alertQueries(): { name: string; query: string }[] {
  const file = parse(fs.readFileSync(ALERTS, 'utf8')) as { groups: { rules: Rule[] }[] };
  return file.groups.flatMap((group) =>
    group.rules.flatMap((rule) =>
      rule.expr.split(/\s+and\s+/).map((part, i) => {
        const query = part.trim().replace(/\s*(==|!=|>=|<=|>|<)\s*[0-9.]+$/, '');
        if (query === part.trim()) throw new Error(`${rule.alert}: no threshold found in "${part}"`);
        return { name: `${rule.alert} [${i}]`, query };
      }),
    ),
  );
}

/** The query KEDA scales the workers on, from the chart rendered for this platform's queue. */
async function scalingQuery(queue: string): Promise<{ name: string; query: string }> {
  const { stdout } = await run(
    process.execPath,
    [path.join(ROOT, 'scripts/deploy-check.mjs'), '--render', '--set', `synthesisWorker.env.SYNTHESIS_QUEUE=${queue}`],
    {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 1_200_000,
    },
  );
  const scaled = parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as { kind?: string; spec?: { triggers: { metadata: { query: string } }[] } } | null)
    .find((m) => m?.kind === 'ScaledObject');
  const query = scaled?.spec?.triggers[0]?.metadata.query;
  if (!query) throw new Error('the rendered chart has no ScaledObject trigger query');
  expect(query).toContain(`queue="${queue}"`);
  return { name: 'KEDA ScaledObject trigger', query };
}

function ruleCount(): number {
  return (parse(fs.readFileSync(ALERTS, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.reduce(
    (n, g) => n + g.rules.length,
    0,
  );
}

/** Installs Debian's prometheus package (promtool, prometheus) with the scripts' own helper when it is missing. */
async function ensurePrometheus(): Promise<void> {
  const helper = `import(${JSON.stringify(path.join(ROOT, 'scripts/lib.mjs'))}).then((m) => m.ensureSystemPackages())`;
  await run(process.execPath, ['-e', helper], { timeout: 600_000 });
}

let platform: Platform;
let account: Account;
let apiKey: string;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let prometheusLog: string;
let scaling: { name: string; query: string };
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prometheus-e2e-'));

async function promQuery(query: string): Promise<unknown[]> {
  const res = await fetch(`${prometheusUrl}/api/v1/query?${new URLSearchParams({ query })}`);
  const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  if (body.status !== 'success') throw new Error(`${query}: ${body.error ?? res.status}`);
  return body.data?.result ?? [];
}

async function startPrometheus(targets: Record<string, number>): Promise<void> {
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  const config = {
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    rule_files: [ALERTS],
    // One job per app, named as the alert rules expect (deploy/README.md shows the Kubernetes relabelling).
    scrape_configs: Object.entries(targets).map(([job, metricsPort]) => ({
      job_name: job,
      static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }],
    })),
  };
  const configFile = path.join(workDir, 'prometheus.yml');
  fs.writeFileSync(configFile, JSON.stringify(config));
  const { stdout } = await run('promtool', ['check', 'config', configFile]);
  expect(stdout).toContain('SUCCESS');
  prometheusLog = path.join(workDir, 'prometheus.log');
  const log = fs.openSync(prometheusLog, 'w');
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(workDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
    ],
    { stdio: ['ignore', log, log] },
  );
  await eventually(
    async () => (await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.status === 200,
    60_000,
    200,
  );
}

/** A stream-input session with the key in the header: one sentence, then the end of input; resolves with the audio bytes when the server closes. */
function streamInput(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(
      `${url.replace(/^http/, 'ws')}/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_16000`,
      { headers: { 'xi-api-key': key } },
    );
    let audio = 0;
    ws.on('open', () => {
      ws.send(JSON.stringify({ text: ' ' }));
      ws.send(JSON.stringify({ text: 'Metrics from the WebSocket.', flush: true }));
      ws.send(JSON.stringify({ text: '' }));
    });
    // Audio arrives as binary frames (pcm), then {"isFinal": true}, then the server closes 1000.
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) audio += data.length;
    });
    ws.on('close', (code) => (code === 1000 ? resolve(audio) : reject(new Error(`stream-input closed ${code}`))));
    ws.on('error', reject);
  });
}

async function synthesize(pathname: string): Promise<number> {
  const res = await fetch(`${platform.publicUrl}/v1/text-to-speech/${RACHEL}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': apiKey },
    body: JSON.stringify({ text: 'Metrics for the operators. A second sentence follows.' }),
  });
  await res.arrayBuffer();
  return res.status;
}

beforeAll(async () => {
  await ensurePrometheus();
  const ports = {
    gateway: await freePort(),
    auth: await freePort(),
    content: await freePort(),
    'synthesis-worker': await freePort(),
  };
  platform = await startPlatform({
    // Concurrency 1 on the free plan, so the tour's parallel requests meet a rate-limit refusal.
    gatewayEnv: {
      METRICS_PORT: String(ports.gateway),
      PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 1 } }),
    },
    authEnv: { METRICS_PORT: String(ports.auth) },
    contentEnv: { METRICS_PORT: String(ports.content) },
    speechWorkers: { env: { METRICS_PORT: String(ports['synthesis-worker']) } },
  });
  account = await registerAccount(platform.publicUrl, 'Metrics Tour');
  apiKey = (await createApiKey(platform.auth.url, account.id)).key;
  await startPrometheus(ports);
  scaling = await scalingQuery(platform.speech.queue);
}, 1_200_000);

afterAll(async () => {
  prometheus?.kill('SIGTERM');
  await platform?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe('Prometheus alert rules and Grafana dashboard against the running apps', () => {
  it('promtool accepts every alert rule', async () => {
    const { stdout } = await run('promtool', ['check', 'rules', ALERTS]);
    expect(stdout).toContain(`SUCCESS: ${ruleCount()} rules found`);
  });

  it('promtool refuses a rule with a broken expression (so the check can fail)', async () => {
    const broken = path.join(workDir, 'broken.yml');
    fs.writeFileSync(
      broken,
      'groups:\n  - name: broken\n    rules:\n      - alert: Broken\n        expr: sum by (job (up)\n',
    );
    await expect(run('promtool', ['check', 'rules', broken])).rejects.toMatchObject({ code: 1 });
  });

  it('has data for every dashboard query, every alert expression and the KEDA trigger after a tour of the platform', async () => {
    // Speech over REST, /stream and the stream-input WebSocket. With a concurrency of 1, the slot of the
    // request before may not be given back yet when the next one starts: such a 429 is retried.
    await eventually(async () => (await synthesize('')) === 200, 30_000, 200);
    await eventually(async () => (await synthesize('/stream')) === 200, 30_000, 200);
    await eventually(async () => (await streamInput(platform.publicUrl, apiKey).catch(() => 0)) > 0, 30_000, 200);
    // Parallel requests over the plan's concurrency of 1: some are refused.
    await eventually(
      async () => (await Promise.all([1, 2, 3, 4].map(() => synthesize('/stream')))).includes(429),
      30_000,
      200,
    );

    // A graphql-ws subscription that stays open, and posts whose events reach it through the outbox and Kafka.
    const subscriber = wsClient(platform.publicUrl, { authorization: `Bearer ${account.token}` });
    const sub = collect<{ onPostCreated: { title: string } }>(subscriber, 'subscription { onPostCreated { title } }');
    let n = 0;
    await eventually(
      async () => {
        n += 1;
        const created = await fetch(`${platform.publicUrl}/api/v1/posts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
          body: JSON.stringify({ title: `metrics tour ${n}`, content: 'x', published: true }),
        });
        expect(created.status).toBe(201);
        return sub.items.length > 0;
      },
      30_000,
      300,
    );

    // OAuth: a client's token, its introspection and revocation, and a refused grant.
    const { stdout } = await run(
      process.execPath,
      [
        path.join(ROOT, 'apps/auth/dist/cli/main.js'),
        'clients:create',
        '--name',
        'metrics-tour',
        '--type',
        'confidential',
        '--grant',
        'client_credentials',
        '--scope',
        'content:read',
        '--resource',
        platform.publicUrl,
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          ...stackEnv(),
          MONGO_DB: platform.authDb,
          INTERNAL_SECRET,
          PUBLIC_URL: platform.publicUrl,
        },
        timeout: 30_000,
      },
    );
    const registered = JSON.parse(stdout) as { client_id: string; client_secret: string };
    const issuer = await Issuer.discover(`${platform.publicUrl}/.well-known/oauth-authorization-server`);
    const client: BaseClient = new issuer.Client({
      client_id: registered.client_id,
      client_secret: registered.client_secret,
    });
    const tokens = await client.grant({ grant_type: 'client_credentials', scope: 'content:read' });
    expect((await client.introspect(tokens.access_token!)).active).toBe(true);
    await client.revoke(tokens.access_token!);
    await expect(client.grant({ grant_type: 'password', username: 'nobody', password: 'wrong' })).rejects.toMatchObject(
      { error: expect.any(String) },
    );

    // Every query has data once Prometheus has scraped the tour (rates need two scrapes).
    const queries = [...dashboardQueries(), ...alertQueries(), scaling];
    expect(queries.length).toBeGreaterThan(30);
    let empty: string[] = [];
    try {
      await eventually(
        async () => {
          const results = await Promise.all(
            queries.map(async ({ name, query }) => ({ name, query, result: await promQuery(query) })),
          );
          empty = results.filter((r) => r.result.length === 0).map((r) => `${r.name}: ${r.query}`);
          return empty.length === 0;
        },
        60_000,
        1000,
      );
    } catch {
      throw new Error(
        `no data for:\n${empty.join('\n')}\n(prometheus log: ${fs.readFileSync(prometheusLog, 'utf8').slice(-2000)})`,
      );
    }
    sub.dispose();
    await subscriber.dispose();

    // Prometheus loaded the rules it was given and evaluates them.
    const rules = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; health: string }[] }[] };
    };
    const loaded = rules.data.groups.flatMap((g) => g.rules);
    expect(loaded).toHaveLength(ruleCount());
    await eventually(
      async () => {
        const fresh = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as typeof rules;
        return fresh.data.groups.flatMap((g) => g.rules).every((r) => r.health === 'ok');
      },
      30_000,
      500,
    );
  });
});
