import { DEFAULT_PLANS, PLAN_NAMES, loadPlans, planName, planPriority, PlansConfigError } from '../src';

describe('plans', () => {
  it('orders plans for priority', () => {
    expect(planPriority('enterprise')).toBeLessThan(planPriority('pro'));
    expect(planPriority('pro')).toBeLessThan(planPriority('free'));
    expect(planPriority(undefined)).toBe(planPriority('free'));
  });

  it('gives each plan its queue priority, dearest first, whatever the case; unknown plans queue with free', () => {
    expect(PLAN_NAMES.map((plan) => [plan, planPriority(plan)])).toEqual([
      ['free', 5],
      ['starter', 4],
      ['creator', 3],
      ['pro', 2],
      ['enterprise', 1],
    ]);
    expect(planPriority('PRO')).toBe(2);
    expect(planPriority('platinum')).toBe(5);
    expect(planPriority('')).toBe(5);
  });

  it('reads plan names case-insensitively, anything else as free', () => {
    expect(planName('Creator')).toBe('creator');
    expect(planName(undefined)).toBe('free');
    expect(planName('gold')).toBe('free');
  });

  it('merges SPEECH_PLANS over the defaults field by field and refuses malformed overrides', () => {
    const plans = loadPlans('{"free":{"character_limit":20000}}');
    expect(plans.free).toEqual({ ...DEFAULT_PLANS.free, character_limit: 20000 });
    expect(plans.pro).toEqual(DEFAULT_PLANS.pro);
    expect(loadPlans(undefined)).toEqual(DEFAULT_PLANS);
    expect(() => loadPlans('{nope')).toThrow(PlansConfigError);
    expect(() => loadPlans('{"gold":{"character_limit":1}}')).toThrow(PlansConfigError);
    expect(() => loadPlans('{"free":{"character_limit":-1}}')).toThrow(PlansConfigError);
  });
});
