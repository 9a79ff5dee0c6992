// Log files are readable by their owner only: app logs carry request lines, and however carefully
// secrets are redacted (libs/logger), a log is no place to share with every account on the machine.
import fs from 'node:fs';
import path from 'node:path';

/** Opens `file` for appending, creating it (and its folder) owner-only; an existing file is made 0600 too. */
export function openPrivateLog(file) {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(file, 'a', 0o600);
  // The mode given to open only applies to a new file; one left by an older run may be 0644.
  fs.fchmodSync(fd, 0o600);
  return fd;
}
