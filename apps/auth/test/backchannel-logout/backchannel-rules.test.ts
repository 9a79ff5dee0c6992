import { backchannelLogoutUriProblem } from '../../src/backchannel-logout/backchannel-uri';
import { retryDelayMs } from '../../src/backchannel-logout/logout-outbox';

describe('backchannel_logout_uri (Back-Channel Logout 1.0 §2.2)', () => {
  it('takes https URLs with a port, path and query; refuses fragments, credentials and other schemes', () => {
    expect(backchannelLogoutUriProblem('https://rp.example:8443/logout?tenant=a', false)).toBeUndefined();
    expect(backchannelLogoutUriProblem('https://rp.example/logout#frag', false)).toBe('must not have a fragment');
    expect(backchannelLogoutUriProblem('https://rp.example/logout#', false)).toBe('must not have a fragment');
    expect(backchannelLogoutUriProblem('https://user:pw@rp.example/logout', false)).toBe('must not carry credentials');
    expect(backchannelLogoutUriProblem('ftp://rp.example/logout', false)).toBe('must be an https URL');
    expect(backchannelLogoutUriProblem('/logout', false)).toBe('must be an absolute URL');
  });

  it('takes plain http only on a loopback host, and only where private addresses are allowed', () => {
    for (const uri of [
      'http://127.0.0.1:9000/logout',
      'http://127.0.0.2/logout',
      'http://localhost/logout',
      'http://[::1]:9000/logout',
    ]) {
      expect([uri, backchannelLogoutUriProblem(uri, true)]).toEqual([uri, undefined]);
      expect([uri, backchannelLogoutUriProblem(uri, false)]).toEqual([
        uri,
        expect.stringMatching(/^must be an https URL/),
      ]);
    }
    expect(backchannelLogoutUriProblem('http://rp.example/logout', true)).toMatch(/^must be an https URL/);
    expect(backchannelLogoutUriProblem('http://10.0.0.5/logout', true)).toMatch(/^must be an https URL/);
  });
});

describe('retry backoff', () => {
  it('waits the first delay, then doubles it, up to five minutes', () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(1, attempts))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(1, 20)).toBe(300_000);
    expect(retryDelayMs(10, 1)).toBe(10_000);
  });
});
