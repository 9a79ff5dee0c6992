import { ContentHttpError } from './rest-errors';
import { hasScope, type Caller } from '../identity/caller';

/** Every REST path but register/login (and refresh, which carries its own token) needs a caller. */
export function requireAuthenticated(
  caller: Caller,
  need: 'read' | 'write',
): asserts caller is Caller & { id: string } {
  if (!caller.id) throw new ContentHttpError(401, 'Authentication required');
  if (!hasScope(caller, need)) throw new ContentHttpError(403, `Token lacks the content:${need} scope`);
}
