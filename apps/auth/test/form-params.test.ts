import { clientAuthentication, deviceAuthorizationForm, tokenForm } from '@platform/contracts';
import { authorizationParam, formParams } from '../src/oauth/params';

// The OAuth endpoints read their form parameters with the auth contract's schemas (libs/contracts/src/auth),
// by RFC 6749 §3.1/§3.2: each once, bounded, an empty value absent, unknown parameters ignored.
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('not refused');
};

describe('form parameters (RFC 6749 §3.2)', () => {
  it('parses the revocation and introspection form, ignoring parameters it does not know', () => {
    expect(formParams(tokenForm, { token: 't', token_type_hint: 'refresh_token', extra: ['a', 'b'] })).toEqual({
      token: 't',
      token_type_hint: 'refresh_token',
    });
    expect(formParams(tokenForm, { token: 't', token_type_hint: '' })).toEqual({ token: 't' });
  });

  it.each([
    [{}, 'token is required'],
    [{ token: '' }, 'token is required'],
    [{ token: ['a', 'b'] }, 'token must be given once'],
    [{ token: 't'.repeat(8193) }, 'token is too long'],
    [{ token: 't', token_type_hint: 'h'.repeat(101) }, 'token_type_hint is too long'],
  ])('refuses %j: invalid_request, %s', (params, description) => {
    expect(refusal(() => formParams(tokenForm, params))).toMatchObject({ error: 'invalid_request', description });
  });

  it("reads the client's authentication in the body the same way", () => {
    expect(formParams(clientAuthentication, { client_id: 'web', token: 'x' })).toEqual({ client_id: 'web' });
    expect(refusal(() => formParams(clientAuthentication, { client_id: ['a', 'b'] }))).toMatchObject({
      error: 'invalid_request',
      description: 'client_id must be given once',
    });
    expect(refusal(() => formParams(clientAuthentication, { client_secret: 's'.repeat(513) }))).toMatchObject({
      description: 'client_secret is too long',
    });
  });
});

describe('the device authorization form (RFC 8628 §3.1)', () => {
  it('takes a scope and repeatable resources, each bounded', () => {
    expect(formParams(deviceAuthorizationForm, { scope: 'speech:read', resource: 'https://a.example' })).toEqual({
      scope: 'speech:read',
      resource: ['https://a.example'],
    });
    expect(refusal(() => formParams(deviceAuthorizationForm, { scope: ['a', 'b'] }))).toMatchObject({
      description: 'scope must be given once',
    });
    expect(
      refusal(() => formParams(deviceAuthorizationForm, { resource: Array(11).fill('https://a.example') })),
    ).toMatchObject({
      description: 'resource is malformed',
    });
  });
});

describe('authorization request parameters (libs/contracts), one at a time', () => {
  // /authorize reads each where its check is: which error is redirected and which is a page depends on it.
  it('reads the one parameter asked for, whatever the others hold', () => {
    const params = { client_id: 'web', state: ['a', 'b'], prompt: 'p'.repeat(101), resource: ['https://a.example'] };
    expect(authorizationParam(params, 'client_id')).toBe('web');
    expect(authorizationParam(params, 'resource')).toEqual(['https://a.example']);
    expect(authorizationParam({ resource: 'https://a.example' }, 'resource')).toEqual(['https://a.example']);
    expect(authorizationParam(params, 'redirect_uri')).toBeUndefined();
    expect(authorizationParam({ response_type: '' }, 'response_type')).toBeUndefined();
  });

  it.each([
    [{ state: ['a', 'b'] }, 'state', 'state must be given once'],
    [{ client_id: 'c'.repeat(129) }, 'client_id', 'client_id is too long'],
    [{ request: 'r'.repeat(16_385) }, 'request', 'request is too long'],
    [{ max_age: '1'.repeat(13) }, 'max_age', 'max_age is too long'],
    [{ resource: Array(11).fill('https://a.example') }, 'resource', 'resource is malformed'],
  ] as const)('refuses %j: invalid_request, %s', (params, name, description) => {
    expect(refusal(() => authorizationParam(params, name))).toMatchObject({ error: 'invalid_request', description });
  });
});
