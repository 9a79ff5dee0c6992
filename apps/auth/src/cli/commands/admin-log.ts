import { listAudit } from '../../admin/admin-audit';
import { parsePage } from '../../admin/paging';
import { cliCommand } from '../cli-command';

export const listAuditCommand = cliCommand({
  name: 'audit:list',
  summary: 'the admin_audit log, newest first, one page',
  flags: { limit: { type: 'string', value: 'N' }, cursor: { type: 'string', value: 'C' } },
  async run(values, { deps }) {
    return { output: await listAudit(deps.adminAudit, parsePage({ limit: values.limit, cursor: values.cursor })) };
  },
});
