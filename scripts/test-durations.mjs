#!/usr/bin/env node
// Writes tests/support/test-durations.json from the last `npm test` run's results
// (.stack/jest-results-all.json): each test file's duration in seconds, which the jest sequencer
// (tests/support/sequencer.cjs) uses to start the slowest files first on a machine whose jest has no
// timings of its own yet (a fresh clone). Run it after a full run when files were added or got slower.
import fs from 'node:fs';
import path from 'node:path';
import { root, stackDir } from './lib.mjs';

const results = JSON.parse(fs.readFileSync(path.join(stackDir, 'jest-results-all.json'), 'utf8'));
const durations = {};
for (const file of results.testResults) {
  // Results of a run in another checkout name its files there: keep the path inside the repository.
  const relative = file.name.replace(/^.*?\/((apps|libs|tests|scripts|bench)\/)/, '$1');
  durations[relative] = Math.max(1, Math.round((file.endTime - file.startTime) / 1000));
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
const target = path.join(root, 'tests', 'support', 'test-durations.json');
fs.writeFileSync(target, `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`${Object.keys(sorted).length} files' durations written to ${path.relative(root, target)}`);
