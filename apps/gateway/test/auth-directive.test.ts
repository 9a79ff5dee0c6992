import { buildSchema, parse } from 'graphql';
import { checkAuthDirectives } from '../src/subscriptions/auth-directive';
import { buildSubscriptionSchema } from '../src/subscriptions/subscription-schema';
import { viewerRank, type Viewer } from '../src/subscriptions/viewer';

const anonymous: Viewer = { roles: [] };
const user: Viewer = { sub: 'acc-1', roles: ['USER'] };
const moderator: Viewer = { sub: 'acc-2', roles: ['MODERATOR'] };
const admin: Viewer = { sub: 'acc-3', roles: ['ADMIN', 'USER'] };
/** A client-credentials token: authenticated, no user role. */
const machine: Viewer = { sub: 'client-1', roles: [] };

const codes = (errors: ReturnType<typeof checkAuthDirectives>) => errors.map((e) => e.extensions.code);

describe('viewerRank', () => {
  it('ranks ADMIN > MODERATOR > USER, anonymous below all, any authenticated caller at least USER (as content does)', () => {
    expect(viewerRank(anonymous)).toBe(-1);
    expect(viewerRank(machine)).toBe(viewerRank(user));
    expect(viewerRank(user)).toBeLessThan(viewerRank(moderator));
    expect(viewerRank(moderator)).toBeLessThan(viewerRank(admin));
  });
});

describe('checkAuthDirectives on the real SDL', () => {
  const schema = buildSubscriptionSchema();
  const onUserCreated = parse('subscription { onUserCreated { id name } }');

  it('UNAUTHENTICATED for anonymous callers, nothing for any authenticated one', () => {
    expect(codes(checkAuthDirectives(schema, onUserCreated, anonymous))).toEqual(['UNAUTHENTICATED']);
    for (const viewer of [machine, user, moderator, admin])
      expect(checkAuthDirectives(schema, onUserCreated, viewer)).toEqual([]);
    expect(checkAuthDirectives(schema, parse('subscription { onPostCreated { id } }'), anonymous)).toEqual([]);
  });
});

describe('checkAuthDirectives with a higher role required', () => {
  // The platform's SDL requires no more than USER on any subscription field; FORBIDDEN is reached
  // only with a stricter schema such as this one.
  const schema = buildSchema(`
    enum Role { ADMIN MODERATOR USER GUEST }
    directive @auth(requires: Role = USER) on FIELD_DEFINITION
    type Audit { id: ID! detail: String @auth(requires: ADMIN) }
    type Query { ok: Boolean }
    type Subscription {
      onAudit: Audit! @auth(requires: MODERATOR)
      onDefault: Audit! @auth
    }
  `);

  it('FORBIDDEN for a lower role, UNAUTHENTICATED for anonymous, on the root field and on nested fields', () => {
    const onAudit = parse('subscription { onAudit { id } }');
    expect(codes(checkAuthDirectives(schema, onAudit, user))).toEqual(['FORBIDDEN']);
    expect(codes(checkAuthDirectives(schema, onAudit, machine))).toEqual(['FORBIDDEN']);
    expect(codes(checkAuthDirectives(schema, onAudit, anonymous))).toEqual(['UNAUTHENTICATED']);
    expect(checkAuthDirectives(schema, onAudit, moderator)).toEqual([]);
    const nested = parse('subscription { onAudit { id detail } }');
    expect(codes(checkAuthDirectives(schema, nested, moderator))).toEqual(['FORBIDDEN']);
    expect(checkAuthDirectives(schema, nested, admin)).toEqual([]);
    expect(checkAuthDirectives(schema, nested, moderator)[0]?.message).toBe('detail requires the role ADMIN');
  });

  it('the directive’s default role is USER', () => {
    const onDefault = parse('subscription { onDefault { id } }');
    expect(codes(checkAuthDirectives(schema, onDefault, anonymous))).toEqual(['UNAUTHENTICATED']);
    expect(checkAuthDirectives(schema, onDefault, machine)).toEqual([]);
  });
});
