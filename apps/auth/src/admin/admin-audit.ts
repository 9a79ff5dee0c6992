import { Schema, Types, type Connection, type Model } from 'mongoose';
import { invalidRequest } from './admin-errors';
import { toPage, type Page, type PageRequest } from './paging';

/**
 * The administration audit log, `admin_audit`: one document per change made through the admin API or
 * CLI, appended and never updated or deleted by auth. `changes` holds the new values of the fields an
 * action set, never a secret (a rotated client secret is recorded as the action alone).
 */
export interface AuditActor {
  /** `account`: an admin's token; `client`: a client's own token (automation); `cli`: the admin CLI (OS user). */
  type: 'account' | 'client' | 'cli';
  id: string;
}

export interface AuditEntryDoc {
  _id: Types.ObjectId;
  at: Date;
  actor: AuditActor;
  action: string;
  /** `sign_in_limit`: the sign-in failure counters of an email or address (`logins:unlock`). */
  target: {
    type: 'client' | 'account' | 'signing_key' | 'api_key' | 'sign_in_limit' | 'registration_token';
    id: string;
  };
  changes: Record<string, unknown>;
  requestId: string | null;
}

export type NewAuditEntry = Omit<AuditEntryDoc, '_id' | 'at'>;

const schema = new Schema<AuditEntryDoc>(
  {
    at: { type: Date, required: true },
    actor: { type: Schema.Types.Mixed, required: true },
    action: { type: String, required: true },
    target: { type: Schema.Types.Mixed, required: true },
    changes: { type: Schema.Types.Mixed, default: {} },
    requestId: { type: String, default: null },
  },
  { collection: 'admin_audit', versionKey: false, minimize: false },
);
schema.index({ at: -1, _id: -1 });

export function auditModel(conn: Connection): Model<AuditEntryDoc> {
  return (
    (conn.models.AdminAudit as Model<AuditEntryDoc> | undefined) ?? conn.model<AuditEntryDoc>('AdminAudit', schema)
  );
}

export async function appendAudit(model: Model<AuditEntryDoc>, entry: NewAuditEntry): Promise<void> {
  await model.create({ ...entry, at: new Date() });
}

export interface PublicAuditEntry {
  id: string;
  at: string;
  actor: AuditActor;
  action: string;
  target: AuditEntryDoc['target'];
  changes: Record<string, unknown>;
  request_id: string | null;
}

/**
 * Newest first, by `at` then `_id` (ObjectIds made by different processes, the app and the CLI, are not
 * ordered within one second); the cursor is the last entry's `<at in ms>.<id>`.
 */
export async function listAudit(model: Model<AuditEntryDoc>, page: PageRequest): Promise<Page<PublicAuditEntry>> {
  let filter = {};
  if (page.after !== undefined) {
    const match = /^(\d{1,15})\.([0-9a-f]{24})$/.exec(page.after);
    if (!match) throw invalidRequest('cursor: not a cursor of this list');
    const at = new Date(Number(match[1]));
    const id = new Types.ObjectId(match[2]);
    filter = { $or: [{ at: { $lt: at } }, { at, _id: { $lt: id } }] };
  }
  const rows = await model
    .find(filter)
    .sort({ at: -1, _id: -1 })
    .limit(page.limit + 1)
    .lean<AuditEntryDoc[]>();
  return toPage(
    rows,
    page.limit,
    (r) => `${new Date(r.at).getTime()}.${r._id.toHexString()}`,
    (r) => ({
      id: r._id.toHexString(),
      at: new Date(r.at).toISOString(),
      actor: r.actor,
      action: r.action,
      target: r.target,
      changes: r.changes,
      request_id: r.requestId,
    }),
  );
}
