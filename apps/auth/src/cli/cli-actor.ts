import os from 'node:os';
import type { AuditActor } from '../admin/admin-audit';

/** The operator running the CLI, for the audit log (it has the database credentials, not a token). */
export function cliActor(): AuditActor {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): still audited, as an unknown operator.
  }
  return { type: 'cli', id: user };
}
