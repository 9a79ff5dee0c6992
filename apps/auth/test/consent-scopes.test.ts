import { API_KEYS_SCOPE } from '@platform/oauth-resource';
import { SUPPORTED_SCOPES } from '../src/oauth/scopes';
import { scopeItems } from '../src/pages/html';

describe('the scopes a consent page shows', () => {
  it('says what speech:keys lets the client do: keys that outlast the sign-in, until revoked', () => {
    const html = scopeItems(['speech:write', API_KEYS_SCOPE]);
    expect(html).toContain('<li><code>speech:keys</code>: create API keys for your account');
    expect(html).toContain('until you revoke them');
    expect(html).toContain('<li><code>speech:write</code>: ');
  });

  it('describes every scope the server supports, and escapes the ones it does not know', () => {
    for (const scope of SUPPORTED_SCOPES) expect(scopeItems([scope])).toMatch(/<\/code>: \S/);
    expect(scopeItems(['<b>odd'])).toBe('<li><code>&lt;b&gt;odd</code></li>');
    expect(scopeItems([])).toBe('<li>(no scopes)</li>');
  });

  it('speech:keys is a supported scope (metadata scopes_supported, the playground client)', () => {
    expect(SUPPORTED_SCOPES).toContain(API_KEYS_SCOPE);
  });
});
