import { requiredParameters } from '@platform/oauth-grants';
import { GRANTS } from '../../src/grants';
import { authorizationCodeGrant } from '../../src/grants/authorization-code';
import { clientCredentialsGrant } from '../../src/grants/client-credentials';
import { tokenExchangeGrant } from '../../src/grants/token-exchange';
import { callGrant, fakeWorld, ISSUER, type FakeWorld } from './fake-grant-deps';

// Each grant's handler is given its form's parameters parsed (libs/oauth-grants, the schemas the API
// document describes): the request rules of RFC 6749 §3.2 come from the form, with one description each.
let world: FakeWorld;
beforeEach(() => {
  world = fakeWorld();
});

const refused = (description: string) => ({ error: 'invalid_request', description });

describe("the grants' forms", () => {
  it('refuse a request without a parameter the form requires, named in the description', async () => {
    for (const grant of GRANTS) {
      const [first] = requiredParameters(grant.form.parameters);
      if (first === undefined) continue;
      await expect(callGrant(world, grant, {})).rejects.toMatchObject(refused(`${first} is required`));
      // An empty value is an absent one (RFC 6749 §3.1).
      await expect(callGrant(world, grant, { [first]: '' })).rejects.toMatchObject(refused(`${first} is required`));
    }
    expect(requiredParameters(tokenExchangeGrant.form.parameters)).toEqual(['subject_token', 'subject_token_type']);
  });

  it('refuse a parameter sent twice, or longer than its form allows (RFC 6749 §3.2)', async () => {
    await expect(callGrant(world, authorizationCodeGrant, { code: ['a', 'b'] })).rejects.toMatchObject(
      refused('code must be given once'),
    );
    await expect(callGrant(world, authorizationCodeGrant, { code: 'c'.repeat(513) })).rejects.toMatchObject(
      refused('code is too long'),
    );
    await expect(
      callGrant(world, authorizationCodeGrant, { code: 'c', code_verifier: 'v'.repeat(129) }),
    ).rejects.toMatchObject(refused('code_verifier is too long'));
  });

  it('take a repeatable parameter once or up to ten times, and refuse it malformed', async () => {
    await callGrant(world, clientCredentialsGrant, { resource: [ISSUER, `${ISSUER}/v1`] });
    expect(world.tokens.only.audience).toEqual([ISSUER, `${ISSUER}/v1`]);
    const eleven = Array.from({ length: 11 }, () => `${ISSUER}/v1`);
    await expect(callGrant(world, clientCredentialsGrant, { resource: eleven })).rejects.toMatchObject(
      refused('resource is malformed'),
    );
    await expect(callGrant(world, clientCredentialsGrant, { resource: [`${ISSUER}/v1`, ''] })).rejects.toMatchObject(
      refused('resource is malformed'),
    );
  });

  it("answer a value the form fixes with the form's own description", async () => {
    await expect(
      callGrant(world, tokenExchangeGrant, { subject_token: 't', subject_token_type: 'urn:x' }),
    ).rejects.toMatchObject(refused('subject_token_type must be the access token type'));
  });
});
