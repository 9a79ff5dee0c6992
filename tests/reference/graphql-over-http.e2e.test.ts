import { serverAudits } from 'graphql-http';
import { startPlatform, type Platform } from '../gateway/platform';

/**
 * The gateway's `/graphql` against the GraphQL over HTTP specification, with graphql-http's own audit
 * suite (the reference implementation's): every MUST and every SHOULD passes. (MAY audits are
 * reported by the suite but not required.) The audit sends its requests back to back, anonymously: this
 * platform's anonymous callers get a plan that allows that rate (PLAN_LIMITS_JSON), as the rate limits
 * are not what is audited.
 */
jest.setTimeout(120_000);

let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform({
    gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ anonymous: { rps: 1000, concurrency: 10 } }) },
  });
});

afterAll(async () => {
  await platform?.stop();
});

const audits = serverAudits({ url: () => `${platform.publicUrl}/graphql`, fetchFn: fetch });

describe.each(audits.filter((audit) => !audit.name.startsWith('MAY')).map((audit) => [audit.name, audit] as const))(
  '%s',
  (_name, audit) => {
    it('passes', async () => {
      const result = await audit.fn();
      expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
    });
  },
);
