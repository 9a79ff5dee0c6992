import { defaultPlanTable, limitSubject, planTableWithOverrides } from '../src/limits/plan-limits';

const table = defaultPlanTable({ rps: 50, concurrency: 25 });

describe('plan limits', () => {
  it("follows the speech API's plan table and our Free concurrency", () => {
    expect(Object.fromEntries(table)).toEqual({
      free: { rps: 3, concurrency: 2 },
      starter: { rps: 5, concurrency: 2 },
      creator: { rps: 10, concurrency: 5 },
      pro: { rps: 20, concurrency: 10 },
      enterprise: { rps: 50, concurrency: 25 },
    });
  });
  it('limits accounts by plan and anonymous callers by IP', () => {
    expect(
      limitSubject({ sub: 'a1', roles: ['USER'], scope: '', method: 'api_key', plan: 'Pro' }, '1.2.3.4', table),
    ).toEqual({
      key: 'acct:a1',
      plan: 'pro',
      limit: { rps: 20, concurrency: 10 },
    });
    expect(
      limitSubject({ sub: 'a1', roles: [], scope: '', method: 'bearer_jwt', plan: 'platinum' }, 'x', table).plan,
    ).toBe('free');
    expect(limitSubject({ roles: [], scope: '', method: 'anonymous' }, '1.2.3.4', table)).toEqual({
      key: 'ip:1.2.3.4',
      plan: 'anonymous',
      limit: { rps: 3, concurrency: 2 },
    });
  });
  it('takes overrides from PLAN_LIMITS_JSON and rejects bad ones', () => {
    expect(planTableWithOverrides(table, '{"anonymous":{"rps":1,"concurrency":1}}').get('anonymous')).toEqual({
      rps: 1,
      concurrency: 1,
    });
    expect(() => planTableWithOverrides(table, '{"free":{"rps":0,"concurrency":1}}')).toThrow(/PLAN_LIMITS_JSON/);
    expect(() => planTableWithOverrides(table, 'nope')).toThrow(/PLAN_LIMITS_JSON/);
  });

  it('gives a plan named after an Object.prototype member the free limit, like any unknown plan (never a 503 or a NaN limit)', () => {
    for (const plan of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(limitSubject({ sub: 'a1', roles: ['USER'], scope: '', method: 'bearer_jwt', plan }, 'x', table)).toEqual({
        key: 'acct:a1',
        plan: 'free',
        limit: { rps: 3, concurrency: 2 },
      });
    }
  });
  it('refuses a PLAN_LIMITS_JSON entry that names no plan (it could never apply)', () => {
    expect(() => planTableWithOverrides(table, '{"platinum":{"rps":1,"concurrency":1}}')).toThrow(
      /PLAN_LIMITS_JSON: unknown plan platinum/,
    );
    expect(() => planTableWithOverrides(table, '{"constructor":{"rps":1,"concurrency":1}}')).toThrow(
      /unknown plan constructor/,
    );
    expect(planTableWithOverrides(table, '{"Pro":{"rps":7,"concurrency":3}}').get('pro')).toEqual({
      rps: 7,
      concurrency: 3,
    });
  });
});
