import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The version requirements.txt pins for a distribution (`name==version`), or '' when it pins none. */
export function pinnedVersion(requirements: string, distribution: string): string {
  return new RegExp(`^${distribution}==(.+)$`, 'm').exec(readFileSync(requirements, 'utf8'))?.[1] ?? '';
}

/**
 * Creates the virtual environment `venv` with `python3 -m venv` and installs `requirements` (every
 * dependency pinned) into it with pip from PyPI, unless it already holds exactly the pinned version of
 * `distribution`; never a global install. Test files may call this at the same time: the check and the
 * install run under one `flock` on a lock file, so one installs and the others wait. (Debian's
 * `python3-venv` package provides `venv` with `ensurepip`; scripts/lib.mjs installs it.)
 */
export async function ensureVenv(venv: string, requirements: string, distribution: string): Promise<void> {
  const version = pinnedVersion(requirements, distribution);
  const python = `${venv}/bin/python`;
  const check = `"${python}" -c "import importlib.metadata as m, sys; sys.exit(m.version('${distribution}') != '${version}')"`;
  const install = [
    `rm -rf "${venv}"`,
    `python3 -m venv "${venv}"`,
    `"${venv}/bin/pip" install --disable-pip-version-check --no-input -q -r "${requirements}"`,
  ].join(' && ');
  await run('flock', [`${venv}.lock`, 'sh', '-c', `${check} 2>/dev/null || { ${install}; }`], { timeout: 600_000 });
  const { stdout } = await run(python, ['-c', `import importlib.metadata as m; print(m.version("${distribution}"))`]);
  if (stdout.trim() !== version) throw new Error(`${distribution} in ${venv} is ${stdout.trim()}, not ${version}`);
}
