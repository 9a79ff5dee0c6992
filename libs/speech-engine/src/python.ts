import fs from 'node:fs';

/**
 * The Python 3 interpreter that runs the engine's helpers on eSpeak NG's library (`python/`):
 * Debian's own when there is one (eSpeak NG is Debian's too; a version manager's shim first on PATH
 * would cost a process start of its own), else `python3` from PATH.
 */
export const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
