#!/usr/bin/env node
// `npm test`: everything the tests need, then every jest project. Extra arguments go to jest.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fetchVoices } from './fetch-voices.mjs';
import { ensureDependencies, ensureSystemPackages, root, run, stackDir, stackUp } from './lib.mjs';

const started = Date.now();
ensureDependencies();
ensureSystemPackages();
if (process.env.TEST_INFRA !== 'containers') stackUp();
// The speech service's neural voice (second model); its tests need it.
await fetchVoices().catch((err) => console.error(`neural voice not fetched (its tests will fail): ${err.message}`));
run('npm', ['run', 'build']);
run('npm', ['run', 'lint']);
const results = path.join(stackDir, 'jest-results.json');
const jest = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--selectProjects', 'unit', 'integration', 'e2e', '--json', `--outputFile=${results}`, '--forceExit', ...process.argv.slice(2)],
  { stdio: 'inherit', cwd: root },
);
// One plain closing line that any CI reader understands.
if (fs.existsSync(results)) {
  const summary = JSON.parse(fs.readFileSync(results, 'utf8'));
  console.log(`tests: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed`);
}
console.log(`npm test finished in ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(jest.status ?? 1);
