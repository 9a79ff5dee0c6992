import type { Deps } from '../deps';
import type { KeyInfo } from '../keys/signing-keys';
import { conflict, notFound } from './admin-errors';

export function listKeys(deps: Pick<Deps, 'keys'>): Promise<KeyInfo[]> {
  return deps.keys.list();
}

/** As `keys:rotate`: the new key is in /jwks at once and signs after KEY_ACTIVATION_DELAY. */
export async function rotateKey(
  deps: Pick<Deps, 'keys' | 'config'>,
): Promise<{ current: string; signs_after_seconds: number }> {
  return { current: await deps.keys.rotate(), signs_after_seconds: deps.config.KEY_ACTIVATION_DELAY };
}

/**
 * Retires the previous key at once (keys/signing-keys.ts `retire`): it leaves /jwks, and tokens it
 * signed stop verifying at auth immediately and at resource servers when they next fetch the JWKS.
 */
export async function retireKey(deps: Pick<Deps, 'keys'>, kid: string): Promise<void> {
  const outcome = await deps.keys.retire(kid);
  if (outcome === 'current')
    throw conflict('the current signing key cannot be retired; rotate first, then retire it as the previous key');
  if (outcome === 'unknown') throw notFound('signing key');
}
