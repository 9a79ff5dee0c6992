import { API_KEYS_SCOPE } from '@platform/oauth-resource';
import { SUPPORTED_SCOPES } from '../src/oauth/scopes';
import { scopeList } from '../src/pages/html';

describe('the scopes a consent page shows', () => {
  it('says what speech:keys lets the client do: keys that outlast the sign-in, until revoked', () => {
    const html = scopeList(['speech:write', API_KEYS_SCOPE]);
    expect(html).toContain('<li>Create API keys for your account');
    expect(html).toContain('until you revoke them');
    expect(html).toContain('<code>speech:keys</code></li>');
    expect(html).toContain(
      '<li>Synthesise speech, and clone, edit and delete your voices<code>speech:write</code></li>',
    );
  });

  it('describes every scope the server supports, and escapes the ones it does not know', () => {
    for (const scope of SUPPORTED_SCOPES) expect(scopeList([scope])).toMatch(/<li>[A-Z][^<]+<code>/);
    expect(scopeList(['<b>odd'])).toBe('<ul class="scopes"><li><code>&lt;b&gt;odd</code></li></ul>');
    expect(scopeList([])).toBe('<ul class="scopes"><li>Nothing beyond signing you in</li></ul>');
  });

  it('speech:keys is a supported scope (metadata scopes_supported, the playground client)', () => {
    expect(SUPPORTED_SCOPES).toContain(API_KEYS_SCOPE);
  });
});
