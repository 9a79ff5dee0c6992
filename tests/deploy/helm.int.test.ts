import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, parse } from 'yaml';
import { z, type ZodTypeAny } from 'zod';
import { appConfigShape } from '@platform/testing';
import SERVICES from '../../deploy/helm/platform/services.json';

/**
 * The Helm chart (deploy/helm/platform), rendered and validated offline by scripts/deploy-check.mjs
 * (helm template, then kubeconform -strict against kubernetes-validate's schemas and deploy/schemas/).
 * The first run builds helm and kubeconform with `go install` and creates .stack/deploy-venv: minutes.
 */
jest.setTimeout(1_200_000);

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts', 'deploy-check.mjs');
const run = promisify(execFile);

/** The resource name of an app in the test release (`platform.appName`). */
const resourceOf = (app: string): string => `platform-${app}`;
/** The apps of the service manifest the chart reads, sorted by resource name; those with a Service; those without. */
const APPS = SERVICES.map((s) => resourceOf(s.name)).sort();
const SERVED = SERVICES.filter((s) => s.serves !== 'none');
const UNSERVED = SERVICES.filter((s) => s.serves === 'none');
/**
 * What kubeconform validates in the test render: the Secret, the ConfigMap, the gateways' HPA and the workers'
 * ScaledObject; a Deployment, a PodDisruptionBudget and a NetworkPolicy per app; a Service per app that serves.
 */
const RESOURCES = 4 + 3 * SERVICES.length + SERVED.length;
/** With monitoring.enabled, also: a metrics Service and a ServiceMonitor per app that serves, a PodMonitor per other app, the PrometheusRule. */
const MONITORED_RESOURCES = RESOURCES + 2 * SERVED.length + UNSERVED.length + 1;

interface CheckResult {
  code: number;
  output: string;
}

async function deployCheck(...args: string[]): Promise<CheckResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, ...args], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 1_200_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    };
  }
}

interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

interface Container {
  name: string;
  image: string;
  ports: { name: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
}

async function render(...args: string[]): Promise<Manifest[]> {
  const { code, output } = await deployCheck('--render', ...args);
  if (code !== 0) throw new Error(`render failed: ${output}`);
  return parseAllDocuments(output)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

function containerOf(deployment: Manifest): Container {
  const spec = deployment.spec as { template: { spec: { containers: Container[] } } };
  const [container] = spec.template.spec.containers;
  if (!container) throw new Error(`${deployment.metadata.name} has no container`);
  return container;
}

function summary(output: string): { valid: number; invalid: number; errors: number } {
  const match = /deploy-check: (\d+) valid, (\d+) invalid, (\d+) errors/.exec(output);
  if (!match) throw new Error(`no summary line in:\n${output}`);
  return { valid: Number(match[1]), invalid: Number(match[2]), errors: Number(match[3]) };
}

function writeManifest(name: string, text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-test-')), name);
  fs.writeFileSync(file, text);
  return file;
}

/** Variables an app cannot boot without: those whose schema rejects "unset". */
function requiredVariables(shape: Record<string, ZodTypeAny>): string[] {
  return Object.entries(shape)
    .filter(([, schema]) => !schema.safeParse(undefined).success)
    .map(([name]) => name);
}

describe('deploy/helm/platform', () => {
  it('passes helm lint --strict, renders, and every manifest validates against the Kubernetes and KEDA schemas', async () => {
    const { code, output } = await deployCheck();
    expect(output).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(summary(output)).toEqual({ valid: RESOURCES, invalid: 0, errors: 0 });
    expect(code).toBe(0);
    for (const kind of [
      'Deployment',
      'Service',
      'Secret',
      'ConfigMap',
      'PodDisruptionBudget',
      'HorizontalPodAutoscaler',
      'ScaledObject',
      'NetworkPolicy',
    ]) {
      expect(output).toMatch(new RegExp(`^Valid\\s+${kind} `, 'm'));
    }
  });

  it('refuses a broken Deployment (kubeconform -strict: a wrong type and an unknown field)', async () => {
    const broken = writeManifest(
      'broken-deployment.yaml',
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: broken}',
        'spec:',
        '  selector: {matchLabels: {app: broken}}',
        '  template:',
        '    metadata: {labels: {app: broken}}',
        '    spec:',
        '      containers:',
        '        - name: app',
        '          image: example',
        '          ports: [{containerPort: "http"}]',
        '          livenesProbe: {httpGet: {path: /healthz, port: 8080}}',
      ].join('\n'),
    );
    const { code, output } = await deployCheck(broken);
    expect(code).toBe(1);
    expect(output).toMatch(/^Invalid\s+Deployment broken: .*containerPort/m);
    expect(summary(output)).toEqual({ valid: RESOURCES, invalid: 1, errors: 0 });
  });

  it('refuses a ScaledObject with a misspelt field (the vendored KEDA schema is enforced)', async () => {
    const broken = writeManifest(
      'broken-scaledobject.yaml',
      [
        'apiVersion: keda.sh/v1alpha1',
        'kind: ScaledObject',
        'metadata: {name: broken}',
        'spec:',
        '  scaleTargetRef: {name: worker}',
        '  maxReplicas: 10',
        '  triggers: [{type: prometheus, metadata: {query: up, threshold: "1"}}]',
      ].join('\n'),
    );
    const { code, output } = await deployCheck(broken);
    expect(code).toBe(1);
    expect(output).toMatch(/^Invalid\s+ScaledObject broken: .*maxReplicas/m);
  });

  it('with monitoring.enabled: ServiceMonitors (gateway, auth, content), a PodMonitor (workers) and the speech-stream PrometheusRule, valid against the Prometheus Operator schemas', async () => {
    expect((await render()).filter((m) => ['ServiceMonitor', 'PodMonitor', 'PrometheusRule'].includes(m.kind))).toEqual(
      [],
    );
    const { code, output } = await deployCheck('--set', 'monitoring.enabled=true');
    expect(summary(output)).toEqual({ valid: MONITORED_RESOURCES, invalid: 0, errors: 0 });
    expect(code).toBe(0);
    for (const kind of ['ServiceMonitor', 'PodMonitor', 'PrometheusRule'])
      expect(output).toMatch(new RegExp(`^Valid\\s+${kind} `, 'm'));

    const manifests = await render(
      '--set',
      'monitoring.enabled=true',
      '--set',
      'gateway.env.SPEECH_QUEUE_WAIT_MS=8000',
    );
    const monitors = manifests.filter((m) => m.kind === 'ServiceMonitor').map((m) => m.metadata.name);
    expect(monitors.sort()).toEqual(SERVED.map((s) => resourceOf(s.name)).sort());
    // Each ServiceMonitor finds a Service that exposes the metrics port (the app Services do not).
    for (const app of SERVED.map((s) => s.name)) {
      const service = manifests.find((m) => m.kind === 'Service' && m.metadata.name === `platform-${app}-metrics`)!;
      expect((service.spec as { ports: { name: string; targetPort: string }[] }).ports).toEqual([
        expect.objectContaining({ name: 'metrics', targetPort: 'metrics' }),
      ]);
    }
    const podMonitors = manifests.filter((m) => m.kind === 'PodMonitor');
    const component = (m: Manifest) =>
      (m.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels[
        'app.kubernetes.io/component'
      ];
    expect(podMonitors.map(component)).toEqual(UNSERVED.map((s) => s.name));

    // The chart's rules are deploy/prometheus/alerts.yml's speech-streams group; the queue age follows SPEECH_QUEUE_WAIT_MS / 2.
    type Rules = { groups: { name: string; rules: { alert: string; expr: string; for?: string }[] }[] };
    const plain = (
      parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as Rules
    ).groups.find((g) => g.name === 'speech-streams')!;
    const chart = (manifests.find((m) => m.kind === 'PrometheusRule')!.spec as Rules).groups[0]!;
    const shape = (rules: Rules['groups'][number]['rules']) =>
      rules.map((r) => ({ alert: r.alert, expr: r.expr, for: r.for }));
    expect(shape(chart.rules)).toEqual(
      shape(plain.rules).map((r) =>
        r.alert === 'SynthesisQueueOldestWait' ? { ...r, expr: r.expr.replace('> 2.5', '> 4') } : r,
      ),
    );
    expect(chart.rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'SpeechStreamUnderruns',
        'SynthesisQueueOldestWait',
        'SynthesisTakeovers',
        'SpeechRequestsRefused',
        'SynthesisJobsFailing',
      ]),
    );
  });

  it('refuses a ServiceMonitor and a PrometheusRule with a misspelt field (the vendored Prometheus Operator schemas are enforced)', async () => {
    const broken = writeManifest(
      'broken-monitoring.yaml',
      [
        'apiVersion: monitoring.coreos.com/v1',
        'kind: ServiceMonitor',
        'metadata: {name: broken-monitor}',
        'spec:',
        '  selector: {matchLabels: {app: x}}',
        '  endpoints: [{port: metrics, intervall: 30s}]',
        '---',
        'apiVersion: monitoring.coreos.com/v1',
        'kind: PrometheusRule',
        'metadata: {name: broken-rule}',
        'spec:',
        '  groups: [{name: g, rules: [{alert: A, expression: up}]}]',
      ].join('\n'),
    );
    const { code, output } = await deployCheck(broken);
    expect(code).toBe(1);
    expect(output).toMatch(/^Invalid\s+ServiceMonitor broken-monitor: .*intervall/m);
    expect(output).toMatch(/^Invalid\s+PrometheusRule broken-rule: /m);
  });

  it('deploys a service added to services.json, with only its values block beside it: its resources follow whom it serves', async () => {
    const chart = fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-test-chart-'));
    try {
      fs.cpSync(path.join(ROOT, 'deploy/helm/platform'), chart, { recursive: true });
      const added = [
        { name: 'billing', valuesKey: 'billing', port: 8084, metricsPort: 9468, serves: 'internal' },
        { name: 'ledger-worker', valuesKey: 'ledgerWorker', port: 8085, metricsPort: 9469, serves: 'none' },
      ];
      fs.writeFileSync(path.join(chart, 'services.json'), JSON.stringify([...SERVICES, ...added], null, 2));
      const block = (key: string, app: string, port: number) => [
        `${key}:`,
        '  replicas: 2',
        `  port: ${port}`,
        `  command: ["node", "apps/${app}/dist/main.js"]`,
        '  target: app',
        '  env: {}',
        '  resources: { requests: { cpu: 250m, memory: 256Mi }, limits: { cpu: "1", memory: 512Mi } }',
        '  pdb: { maxUnavailable: 1 }',
      ];
      const values = writeManifest(
        'added-values.yaml',
        [...block('billing', 'billing', 8084), ...block('ledgerWorker', 'ledger-worker', 8085)].join('\n'),
      );
      const args = ['--chart', chart, '--values', values, '--set', 'monitoring.enabled=true'];

      const { code, output } = await deployCheck(...args);
      // billing: Deployment, PodDisruptionBudget, NetworkPolicy, Service, metrics Service, ServiceMonitor; ledger-worker: the first three and a PodMonitor.
      expect(summary(output)).toEqual({ valid: MONITORED_RESOURCES + 6 + 4, invalid: 0, errors: 0 });
      expect(code).toBe(0);

      const manifests = await render(...args);
      const kindsOf = (app: string) =>
        manifests
          .filter((m) => m.metadata.name.startsWith(`platform-${app}`))
          .map((m) => `${m.kind} ${m.metadata.name}`)
          .sort();
      expect(kindsOf('billing')).toEqual([
        'Deployment platform-billing',
        'NetworkPolicy platform-billing',
        'PodDisruptionBudget platform-billing',
        'Service platform-billing',
        'Service platform-billing-metrics',
        'ServiceMonitor platform-billing',
      ]);
      expect(kindsOf('ledger-worker')).toEqual([
        'Deployment platform-ledger-worker',
        'NetworkPolicy platform-ledger-worker',
        'PodDisruptionBudget platform-ledger-worker',
        'PodMonitor platform-ledger-worker',
      ]);
      // internal: a ClusterIP on its port, open over HTTP to this release's pods only.
      const service = manifests.find((m) => m.kind === 'Service' && m.metadata.name === 'platform-billing')!;
      expect(service.spec).toMatchObject({
        type: 'ClusterIP',
        ports: [{ name: 'http', port: 8084, targetPort: 'http' }],
      });
      type Rule = { from?: unknown[]; ports: { port: string }[] };
      const policy = manifests.find((m) => m.kind === 'NetworkPolicy' && m.metadata.name === 'platform-billing')!;
      const http = (policy.spec as { ingress: Rule[] }).ingress.find((r) => r.ports.some((p) => p.port === 'http'));
      expect(http?.from).toContainEqual({
        podSelector: {
          matchLabels: { 'app.kubernetes.io/name': 'platform', 'app.kubernetes.io/instance': 'platform' },
        },
      });
      expect(
        containerOf(manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'platform-billing')!).ports,
      ).toEqual([
        { name: 'http', containerPort: 8084 },
        { name: 'metrics', containerPort: 9464 },
      ]);
    } finally {
      fs.rmSync(chart, { recursive: true, force: true });
    }
  });

  it('gives every app the variables it cannot boot without, secrets from the Secret only', async () => {
    const manifests = await render();
    const configMap = manifests.find((m) => m.kind === 'ConfigMap')!;
    const secret = manifests.find((m) => m.kind === 'Secret')!;
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['INTERNAL_SECRET', 'MONGO_URL', 'REDIS_URL']);
    // No secret in the ConfigMap or in plain env.
    for (const key of Object.keys(secret.data ?? {})) expect(configMap.data).not.toHaveProperty(key);
    for (const service of SERVICES) {
      const name = resourceOf(service.name);
      const shape = await appConfigShape(service.name);
      const deployment = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === name);
      expect(deployment).toBeDefined();
      const container = containerOf(deployment!);
      expect(container.envFrom).toEqual([{ configMapRef: { name: 'platform' } }, { secretRef: { name: 'platform' } }]);
      const plain = (container.env ?? []).map((e) => e.name);
      for (const key of Object.keys(secret.data ?? {})) expect(plain).not.toContain(key);
      const provided = new Set([...Object.keys(configMap.data ?? {}), ...Object.keys(secret.data ?? {}), ...plain]);
      expect(requiredVariables(shape).filter((v) => !provided.has(v))).toEqual([]);
      // The environment the pod gets, as the app's own configuration reads it: every value valid.
      const env: Record<string, string> = {
        ...configMap.data,
        ...Object.fromEntries(
          Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
        ),
        ...Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? ''])),
      };
      const parsed = z.object(shape).safeParse(env);
      expect(parsed.success ? [] : parsed.error.issues.map((i) => `${name} ${i.path.join('.')}: ${i.message}`)).toEqual(
        [],
      );
    }
  });

  it('probes /healthz and /readyz on each app port, and serves metrics on a named port no Service routes', async () => {
    const manifests = await render();
    const deployments = manifests.filter((m) => m.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(APPS);
    for (const deployment of deployments) {
      const container = containerOf(deployment);
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.ports).toContainEqual({ name: 'metrics', containerPort: 9464 });
      expect(container.resources.requests).toHaveProperty('cpu');
      expect(container.resources.limits).toHaveProperty('memory');
    }
    // Each app runs from its Dockerfile target's image; the worker's CPU request is one CPU per inference thread.
    const images = Object.fromEntries(deployments.map((d) => [d.metadata.name, containerOf(d).image]));
    expect(Object.keys(images).sort()).toEqual(APPS);
    expect(images).toMatchObject({
      'platform-gateway': 'registry.example.com/platform-gateway:0.1.0',
      'platform-auth': 'registry.example.com/platform-app:0.1.0',
      'platform-content': 'registry.example.com/platform-app:0.1.0',
      'platform-synthesis-worker': 'registry.example.com/platform-synthesis-worker:0.1.0',
    });
    const worker = containerOf(deployments.find((d) => d.metadata.name === 'platform-synthesis-worker')!);
    const setting = (name: string) => Number(worker.env?.find((e) => e.name === name)?.value);
    expect(setting('WORKER_CONCURRENCY') * setting('NEURAL_INFERENCE_THREADS')).toBe(
      Number(worker.resources.requests.cpu),
    );

    const services = manifests.filter((m) => m.kind === 'Service');
    expect(services.map((s) => s.metadata.name).sort()).toEqual(SERVED.map((s) => resourceOf(s.name)).sort());
    for (const service of services) {
      for (const port of (service.spec as { ports: { port: number; targetPort: string }[] }).ports) {
        expect(port.targetPort).toBe('http');
        expect(port.port).not.toBe(9464);
      }
    }
    const configMap = manifests.find((m) => m.kind === 'ConfigMap')!;
    expect(configMap.data?.METRICS_PORT).toBe('9464');
    // With network policies on: metrics only from the monitoring namespace; auth and content only from this release.
    type Rule = { from?: unknown[]; ports: { port: string }[] };
    const policies = manifests.filter((m) => m.kind === 'NetworkPolicy');
    expect(policies.map((p) => p.metadata.name).sort()).toEqual(APPS);
    for (const policy of policies) {
      const rules = (policy.spec as { ingress: Rule[] }).ingress;
      const metrics = rules.filter((r) => r.ports.some((p) => p.port === 'metrics'));
      expect(metrics).toEqual([
        {
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
          ports: [{ port: 'metrics' }],
        },
      ]);
      const http = rules.find((r) => r.ports.some((p) => p.port === 'http'));
      const serves = SERVICES.find((s) => resourceOf(s.name) === policy.metadata.name)?.serves;
      if (serves === 'public') expect(http?.from).toBeUndefined();
      else
        expect(http?.from).toContainEqual({
          podSelector: {
            matchLabels: { 'app.kubernetes.io/name': 'platform', 'app.kubernetes.io/instance': 'platform' },
          },
        });
    }
  });

  it('scales workers with KEDA on the queue depth the gateways export, and gateways on CPU', async () => {
    const manifests = await render();
    const scaled = manifests.find((m) => m.kind === 'ScaledObject')!;
    const spec = scaled.spec as {
      scaleTargetRef: { name: string };
      triggers: { type: string; metadata: { query: string } }[];
    };
    expect(spec.scaleTargetRef.name).toBe('platform-synthesis-worker');
    expect(spec.triggers).toHaveLength(1);
    expect(spec.triggers[0]?.type).toBe('prometheus');
    expect(spec.triggers[0]?.metadata.query).toContain('synthesis_queue_jobs{queue="synthesis"');
    const hpa = manifests.find((m) => m.kind === 'HorizontalPodAutoscaler')!;
    expect((hpa.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name).toBe('platform-gateway');
    // With autoscalers owning the counts, the Deployments leave replicas out (an upgrade would reset them).
    for (const name of ['platform-gateway', 'platform-synthesis-worker']) {
      expect(manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === name)!.spec).not.toHaveProperty(
        'replicas',
      );
    }
  });

  it("rolls out and scales down without cutting a stream: preStop, the apps' shutdown bounds, a termination grace above them, one replica drained at a time", async () => {
    const manifests = await render();
    interface PodSpec {
      terminationGracePeriodSeconds: number;
      containers: (Container & { lifecycle?: { preStop?: { exec?: { command: string[] } } } })[];
    }
    const pod = (name: string) =>
      (
        manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === name)!.spec as {
          template: { spec: PodSpec };
        }
      ).template.spec;
    const preStopSeconds = (spec: PodSpec) => {
      const command = spec.containers[0]?.lifecycle?.preStop?.exec?.command ?? [];
      expect(command[0]).toBe('sleep');
      return Number(command[1]);
    };
    const setting = (spec: PodSpec, name: string) =>
      Number(spec.containers[0]?.env?.find((e) => e.name === name)?.value);
    // Gateway: endpoints removed during preStop, then SHUTDOWN_GRACE_MS for the work in flight and 10 s for the last HTTP drain.
    const gateway = pod('platform-gateway');
    expect(preStopSeconds(gateway)).toBeGreaterThan(0);
    expect(setting(gateway, 'SHUTDOWN_GRACE_MS')).toBe(25_000);
    expect(gateway.terminationGracePeriodSeconds).toBeGreaterThan(
      preStopSeconds(gateway) + setting(gateway, 'SHUTDOWN_GRACE_MS') / 1000 + 10,
    );
    // Worker: WORKER_DRAIN_MS, then the hand-over of the jobs still running at their next piece.
    const worker = pod('platform-synthesis-worker');
    expect(preStopSeconds(worker)).toBeGreaterThan(0);
    expect(setting(worker, 'WORKER_DRAIN_MS')).toBe(30_000);
    expect(worker.terminationGracePeriodSeconds).toBeGreaterThan(
      preStopSeconds(worker) + setting(worker, 'WORKER_DRAIN_MS') / 1000 + 10,
    );
    // Scale-down: one replica per period, the period at least a replica's termination grace, after a stabilization window.
    type ScaleDown = {
      stabilizationWindowSeconds: number;
      policies: { type: string; value: number; periodSeconds: number }[];
    };
    const hpaDown = (
      manifests.find((m) => m.kind === 'HorizontalPodAutoscaler')!.spec as { behavior: { scaleDown: ScaleDown } }
    ).behavior.scaleDown;
    const kedaDown = (
      manifests.find((m) => m.kind === 'ScaledObject')!.spec as {
        advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: ScaleDown } } };
      }
    ).advanced.horizontalPodAutoscalerConfig.behavior.scaleDown;
    for (const [down, spec] of [
      [hpaDown, gateway],
      [kedaDown, worker],
    ] as const) {
      expect(down.stabilizationWindowSeconds).toBeGreaterThanOrEqual(spec.terminationGracePeriodSeconds);
      expect(down.policies).toEqual([{ type: 'Pods', value: 1, periodSeconds: expect.any(Number) }]);
      expect(down.policies[0]!.periodSeconds).toBeGreaterThanOrEqual(spec.terminationGracePeriodSeconds);
    }
    // A termination grace that would cut the app's own bound short is refused at render time.
    const { code, output } = await deployCheck('--render', '--set', 'gateway.terminationGracePeriodSeconds=30');
    expect(code).not.toBe(0);
    expect(output).toContain('gateway: terminationGracePeriodSeconds (30) must exceed');
  });

  it('keeps secret values out of values.yaml: an existing Secret is referenced, none given is an error', async () => {
    const values = parse(fs.readFileSync(path.join(ROOT, 'deploy/helm/platform/values.yaml'), 'utf8')) as {
      secrets: { existingSecret: string; values: object };
    };
    expect(values.secrets).toEqual({ existingSecret: '', values: {} });

    const withExisting = await render('--without-secrets', '--set', 'secrets.existingSecret=platform-secrets');
    expect(withExisting.filter((m) => m.kind === 'Secret')).toEqual([]);
    for (const deployment of withExisting.filter((m) => m.kind === 'Deployment')) {
      expect(containerOf(deployment).envFrom).toContainEqual({ secretRef: { name: 'platform-secrets' } });
    }

    const { code, output } = await deployCheck('--render', '--without-secrets');
    expect(code).toBe(1);
    expect(output).toContain('secrets.values.MONGO_URL is required');
  });
});
