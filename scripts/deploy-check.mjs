#!/usr/bin/env node
// Lints (helm lint --strict) and renders the Helm chart (deploy/helm/platform), and validates every manifest
// offline with kubeconform: Kubernetes kinds against the JSON schemas of the PyPI package kubernetes-validate
// (pinned in deploy/schemas/requirements.txt, installed by pip into .stack/deploy-venv), KEDA's ScaledObject
// against deploy/schemas/keda.sh/. helm and kubeconform are built with `go install` at pinned versions (through
// the Go module proxy) and kept in .stack/bin, so reruns start at once. Nothing is fetched from a cluster.
//
//   node scripts/deploy-check.mjs [--values file]... [--set key=value]... [manifest.yaml]...
//   node scripts/deploy-check.mjs --render [--without-secrets] [--values file]... [--set key=value]...
//     prints the YAML only; --without-secrets leaves out the fake secrets the test render gives.
//   --chart folder: check or render a copy of the chart instead (the test adds a service to a copy's
//     services.json this way, to show that the manifest alone deploys it).
//
// Extra manifest files are validated along with the rendered chart (the test uses this to prove a broken
// manifest is refused). Prints kubeconform's lines and a summary; exits 1 when any resource is invalid or
// has no schema.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { has, root, stackDir } from './lib.mjs';

const TOOLS = {
  helm: { module: 'helm.sh/helm/v3/cmd/helm', version: 'v3.16.4' },
  kubeconform: { module: 'github.com/yannh/kubeconform/cmd/kubeconform', version: 'v0.6.7' },
};
/** The Kubernetes release validated against (one of kubernetes-validate's schema folders). */
export const KUBERNETES_VERSION = '1.35.0';
const CHART = path.join(root, 'deploy', 'helm', 'platform');
const TEST_VALUES = path.join(root, 'deploy', 'helm', 'test-values.yaml');
const REQUIREMENTS = path.join(root, 'deploy', 'schemas', 'requirements.txt');
const CRD_SCHEMAS = path.join(root, 'deploy', 'schemas');
const VENV = path.join(stackDir, 'deploy-venv');

/** helm v3.16 needs Go 1.22 or later to build. */
const MIN_GO = [1, 22];
/**
 * The Go used when the machine's is older (Debian 12's golang-go is 1.19): Go's own distribution as the
 * module golang.org/toolchain on the Go module proxy, which any Go can fetch (Go 1.21 and later switch to
 * it by themselves; an older one is told to download it).
 */
const GO_TOOLCHAIN = 'go1.23.4';

/** `[major, minor]` of a Go command, or null when it does not run. */
function goVersion(go) {
  const result = spawnSync(go, ['env', 'GOVERSION'], {
    encoding: 'utf8',
    env: { ...process.env, GOTOOLCHAIN: 'local' },
  });
  const match = result.status === 0 ? /^go(\d+)\.(\d+)/.exec(result.stdout.trim()) : null;
  return match ? [Number(match[1]), Number(match[2])] : null;
}

const recentEnough = (version) =>
  version !== null && (version[0] > MIN_GO[0] || (version[0] === MIN_GO[0] && version[1] >= MIN_GO[1]));

/** A Go that builds the pinned tools: the machine's if recent enough, else GO_TOOLCHAIN fetched once into .stack/go. */
function goCommand() {
  const installed = [has('go') ? 'go' : null, '/usr/local/go/bin/go', '/usr/lib/go/bin/go'].filter(
    (go) => go !== null && (go === 'go' || fs.existsSync(go)),
  );
  const usable = installed.find((go) => recentEnough(goVersion(go)));
  if (usable) return usable;
  const fetched = path.join(stackDir, 'go', GO_TOOLCHAIN);
  if (fs.existsSync(path.join(fetched, 'bin', 'go'))) return path.join(fetched, 'bin', 'go');
  const bootstrap = installed.find((go) => goVersion(go) !== null);
  if (!bootstrap) throw new Error('Go is needed to build helm and kubeconform (Debian: apt-get install golang-go)');
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch;
  const module = `golang.org/toolchain@v0.0.1-${GO_TOOLCHAIN}.linux-${arch}`;
  console.error(
    `fetching ${GO_TOOLCHAIN} (${module}) from the Go module proxy with ${bootstrap}: the machine's Go is older than ${MIN_GO.join('.')}…`,
  );
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'go-toolchain-'));
  const info = JSON.parse(
    execFileSync(bootstrap, ['mod', 'download', '-json', module], {
      cwd: os.tmpdir(),
      env: { ...process.env, GOMODCACHE: cache, GOFLAGS: '-modcacherw', GOTOOLCHAIN: 'local', GO111MODULE: 'on' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const staging = `${fetched}.partial-${process.pid}`;
  fs.cpSync(info.Dir, staging, { recursive: true });
  fs.rmSync(cache, { recursive: true, force: true });
  // A module zip keeps no file modes: the commands get theirs back, as Go's own toolchain switch does.
  const tools = path.join(staging, 'pkg', 'tool', `linux_${arch}`);
  for (const dir of [path.join(staging, 'bin'), tools])
    for (const name of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, name), 0o755);
  fs.renameSync(staging, fetched);
  return path.join(fetched, 'bin', 'go');
}

/** The pinned tool's binary, built once into .stack/bin/<name>-<version>. */
function tool(name) {
  const { module, version } = TOOLS[name];
  const binary = path.join(stackDir, 'bin', `${name}-${version}`);
  if (fs.existsSync(binary)) return binary;
  const gobin = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  console.error(`building ${name} ${version} with go install (once; kept in ${path.relative(root, binary)})…`);
  execFileSync(goCommand(), ['install', `${module}@${version}`], {
    cwd: os.tmpdir(),
    env: { ...process.env, GOBIN: gobin, CGO_ENABLED: '0', GOTOOLCHAIN: 'local' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  // rename is atomic: two checks building at once both end with a whole binary.
  fs.renameSync(path.join(gobin, name), binary);
  fs.rmSync(gobin, { recursive: true, force: true });
  return binary;
}

/** `distribution==version` from a pinned requirements file. */
function pinned(distribution) {
  const match = new RegExp(`^${distribution}==(.+)$`, 'm').exec(fs.readFileSync(REQUIREMENTS, 'utf8'));
  if (!match) throw new Error(`${REQUIREMENTS} pins no ${distribution}`);
  return match[1].trim();
}

/** The kubernetes-validate package folder in .stack/deploy-venv, installed by pip when missing or another version. */
function kubernetesValidate() {
  const version = pinned('kubernetes-validate');
  const python = path.join(VENV, 'bin', 'python');
  const check = `"${python}" -c "import importlib.metadata as m, sys; sys.exit(m.version('kubernetes-validate') != '${version}')"`;
  const install = `rm -rf "${VENV}" && python3 -m venv "${VENV}" && "${VENV}/bin/pip" install --disable-pip-version-check --no-input -q -r "${REQUIREMENTS}"`;
  fs.mkdirSync(stackDir, { recursive: true });
  // One installer at a time (flock); the others wait and then find it installed.
  execFileSync('flock', [`${VENV}.lock`, 'sh', '-c', `${check} 2>/dev/null || { ${install}; }`], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const location = execFileSync(python, [
    '-c',
    'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))',
  ])
    .toString()
    .trim();
  return { version, folder: path.join(location, 'kubernetes-json-schema') };
}

/**
 * kubeconform's schema folder for KUBERNETES_VERSION. kubernetes-validate's schemas point at their shared
 * definitions with the registry path `/api/_definitions.json`, which only its own Python resolver knows;
 * the copy made here points at the copied definitions file by its file:// URL, which kubeconform loads.
 */
function kubernetesSchemas() {
  const { version, folder } = kubernetesValidate();
  const target = path.join(stackDir, 'kubeconform-schemas', version, `v${KUBERNETES_VERSION}-standalone-strict`);
  const done = path.join(target, '.complete');
  if (fs.existsSync(done)) return path.dirname(target);
  const source = path.join(folder, `v${KUBERNETES_VERSION}-local-strict`);
  if (!fs.existsSync(source))
    throw new Error(`kubernetes-validate ${version} has no schemas for Kubernetes ${KUBERNETES_VERSION}`);
  const partial = `${target}.${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  const definitions = `file://${path.join(target, '_definitions.json')}`;
  for (const name of fs.readdirSync(source)) {
    const text = fs.readFileSync(path.join(source, name), 'utf8');
    fs.writeFileSync(path.join(partial, name), text.replaceAll('"/api/_definitions.json#', `"${definitions}#`));
  }
  fs.writeFileSync(path.join(partial, '.complete'), '');
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(partial, target);
  return path.dirname(target);
}

/** Writes the fake secrets the test render gives with --set-file, as an operator gives the real ones. */
function fakeSecretFiles(folder) {
  const secrets = {
    INTERNAL_SECRET: 'test-only-internal-secret-0123456789abcdef',
    MONGO_URL: 'mongodb://platform:test-only@mongo-0.mongo,mongo-1.mongo,mongo-2.mongo/?replicaSet=rs0',
    REDIS_URL: 'redis://:test-only@redis-master:6379',
  };
  return Object.entries(secrets).flatMap(([key, value]) => {
    const file = path.join(folder, key);
    fs.writeFileSync(file, `${value}\n`, { mode: 0o600 });
    return ['--set-file', `secrets.values.${key}=${file}`];
  });
}

/**
 * Runs `helm <command>` on the chart with the test values and fake secrets (and any --values/--set
 * given); returns its standard output, throws with its errors.
 */
function helm(command, helmArgs, { withSecrets = true, chart = CHART } = {}) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-check-'));
  try {
    const secrets = withSecrets ? fakeSecretFiles(folder) : [];
    const result = spawnSync(
      tool('helm'),
      [
        ...command,
        chart,
        '--namespace',
        'platform',
        '--kube-version',
        KUBERNETES_VERSION,
        '--values',
        TEST_VALUES,
        ...secrets,
        ...helmArgs,
      ],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        env: {
          ...process.env,
          HELM_CACHE_HOME: path.join(stackDir, 'helm', 'cache'),
          HELM_CONFIG_HOME: path.join(stackDir, 'helm', 'config'),
          HELM_DATA_HOME: path.join(stackDir, 'helm', 'data'),
        },
      },
    );
    if (result.status !== 0) throw new Error(`helm ${command[0]} failed: ${`${result.stdout}${result.stderr}`.trim()}`);
    return result.stdout;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** `helm template` of the chart; returns the YAML. */
export function renderChart(helmArgs = [], options = {}) {
  return helm(['template', 'platform'], helmArgs, options);
}

/** `helm lint --strict`: the chart's own conventions (a template warning fails it too). */
export function lintChart(helmArgs = [], options = {}) {
  return helm(['lint', '--strict'], helmArgs, options);
}

/** kubeconform -strict over the files; returns its exit status, its lines and its summary. */
export function validate(files) {
  const result = spawnSync(
    tool('kubeconform'),
    [
      '-strict',
      '-summary',
      '-verbose',
      '-output',
      'json',
      '-kubernetes-version',
      KUBERNETES_VERSION,
      '-schema-location',
      `${kubernetesSchemas()}/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
      '-schema-location',
      `${CRD_SCHEMAS}/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json`,
      ...files,
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return { status: result.status, output: result.stdout + result.stderr };
}

function main(argv) {
  const helmArgs = [];
  const manifests = [];
  let renderOnly = false;
  let withSecrets = true;
  let chart = CHART;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--values' || argv[i] === '--set') helmArgs.push(argv[i], argv[++i]);
    else if (argv[i] === '--render') renderOnly = true;
    else if (argv[i] === '--without-secrets') withSecrets = false;
    else if (argv[i] === '--chart') chart = path.resolve(argv[++i]);
    else manifests.push(path.resolve(argv[i]));
  }
  if (renderOnly) {
    process.stdout.write(renderChart(helmArgs, { withSecrets, chart }));
    return 0;
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-check-'));
  try {
    process.stdout.write(lintChart(helmArgs, { chart }));
    const rendered = path.join(folder, 'platform.yaml');
    fs.writeFileSync(rendered, renderChart(helmArgs, { chart }));
    const { status, output } = validate([rendered, ...manifests]);
    const report = JSON.parse(output);
    for (const r of report.resources ?? [])
      console.log(
        `${r.status.replace(/^status/, '').padEnd(7)} ${r.kind} ${r.name}${r.msg ? `: ${r.msg}` : ''} (${path.basename(r.filename)})`,
      );
    const s = report.summary;
    console.log(`deploy-check: ${s.valid} valid, ${s.invalid} invalid, ${s.errors} errors, ${s.skipped} skipped`);
    return status === 0 && s.invalid === 0 && s.errors === 0 && s.valid > 0 ? 0 : 1;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exit(main(process.argv.slice(2)));
  } catch (err) {
    console.error(`deploy-check: ${err.message}`);
    process.exit(1);
  }
}
