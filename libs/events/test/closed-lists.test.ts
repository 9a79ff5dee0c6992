import { ROLE_RANKS, USER_ROLES } from '../src';

/** One rank table for every role check (content's callers and `@auth`), taken from the roles' order. */
describe('ROLE_RANKS', () => {
  it('ranks ADMIN over MODERATOR over USER over the retired GUEST', () => {
    expect([...ROLE_RANKS]).toEqual([
      ['ADMIN', 3],
      ['MODERATOR', 2],
      ['USER', 1],
      ['GUEST', 0],
    ]);
    expect([...ROLE_RANKS.keys()]).toEqual([...USER_ROLES]);
  });

  it('knows no other name (a Map: `constructor` is not a role)', () => {
    expect(ROLE_RANKS.get('constructor')).toBeUndefined();
    expect(ROLE_RANKS.get('__proto__')).toBeUndefined();
  });
});
