import fs from 'node:fs';
import path from 'node:path';
import { PLAN_NAMES } from '@platform/identity';
import { DEFAULT_PLANS } from '@platform/speech-store';
import { limitsConfigShape } from '../../apps/gateway/src/limits/limits-config';
import { defaultPlanTable } from '../../apps/gateway/src/limits/plan-limits';

/**
 * The README's "Plans" table is written by hand: it must say what the plan table (the gateway's rate and
 * concurrency, with ENTERPRISE_RPS/ENTERPRISE_CONCURRENCY at their defaults) and the speech plans
 * (characters per month, voices) say, one row per plan of PLAN_NAMES.
 */
const readme = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

function plansTable(): string[][] {
  const section = readme.slice(readme.indexOf('\n## Plans\n'));
  const header = '| Plan | Requests per second | Concurrent requests | Characters per month | Voices |';
  const start = section.indexOf(header);
  expect(start).toBeGreaterThan(-1);
  const rows = section.slice(start).split('\n').slice(2);
  return rows
    .slice(
      0,
      rows.findIndex((line) => !line.startsWith('|')),
    )
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

it("README's Plans table is the plan table and the speech plans, one row per plan", () => {
  const table = defaultPlanTable({
    rps: limitsConfigShape.ENTERPRISE_RPS.parse(undefined),
    concurrency: limitsConfigShape.ENTERPRISE_CONCURRENCY.parse(undefined),
  });
  const expected = PLAN_NAMES.map((plan) => [
    plan,
    String(table.get(plan)!.rps),
    String(table.get(plan)!.concurrency),
    String(DEFAULT_PLANS[plan].character_limit),
    String(DEFAULT_PLANS[plan].voice_limit),
  ]);
  expect(plansTable()).toEqual(expected);
});
