import { API_KEYS_SCOPE, mintableApiKeyScopes } from '../src';

describe('mintableApiKeyScopes: what a key minted with a token may hold', () => {
  it('is the speech scopes the token holds, never more', () => {
    expect(mintableApiKeyScopes(`speech:write ${API_KEYS_SCOPE}`)).toEqual(['speech:write']);
    expect(mintableApiKeyScopes(`content:read speech:read speech:write ${API_KEYS_SCOPE} offline_access`)).toEqual([
      'speech:read',
      'speech:write',
    ]);
    expect(mintableApiKeyScopes(`content:write ${API_KEYS_SCOPE}`)).toEqual([]);
  });

  it('does not take the key-making scope itself, or a scope that merely starts like one, for a key scope', () => {
    expect(mintableApiKeyScopes(API_KEYS_SCOPE)).toEqual([]);
    expect(mintableApiKeyScopes('speech:readx speech:write2')).toEqual([]);
  });
});
