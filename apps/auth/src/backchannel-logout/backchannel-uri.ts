import { isLoopbackAddress } from '../http/address-ranges';

/**
 * OpenID Connect Back-Channel Logout 1.0 §2.2: `backchannel_logout_uri` is an absolute URL without a
 * fragment, which the OP calls from the server side. It must be `https`; a plain `http` URL only on a
 * loopback host and only where BACKCHANNEL_LOGOUT_ALLOW_PRIVATE is on (development and tests), since the
 * logout token would otherwise cross a network in clear. Returns what is wrong, or undefined.
 */
export function backchannelLogoutUriProblem(value: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '' || value.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return 'must be an https URL';
  const loopback = url.hostname === 'localhost' || isLoopbackAddress(url.hostname.replace(/^\[|\]$/g, ''));
  if (!allowPrivate || !loopback)
    return 'must be an https URL (http only on a loopback host where BACKCHANNEL_LOGOUT_ALLOW_PRIVATE is on)';
  return undefined;
}
