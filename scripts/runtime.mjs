// The Node.js release the platform runs on, for `npm start` and `npm test` on any machine: started
// with another Node.js, they fetch this one from the npm registry (`node-<platform>-<arch>`, the
// package the `node` package installs, which carries the official binary and headers) into the stack
// directory once, and run themselves again on it.
// Plain Node, no dependencies: it runs before `npm install`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stackDir } from './lib.mjs';

/** The Node.js LTS the Dockerfile, the chart's image and CI use (docs/decisions.md, "Runtime"). */
export const NODE_VERSION = '26.10.0';

/** Where the pinned release lives once fetched; its `bin` holds `node`. */
export const runtimeDir = path.join(stackDir, 'node', NODE_VERSION);
/** The official build for this machine, as the `node` package names it; no install script to run. */
const PACKAGE = `node-${process.platform}-${process.arch}`;
const release = path.join(runtimeDir, 'node_modules', PACKAGE);
const binary = path.join(release, 'bin', 'node');

/**
 * Runs the calling script (`scriptUrl`: its `import.meta.url`) on the pinned Node.js unless it already
 * runs on it, and exits with its status; returns only on the pinned release. `PLATFORM_NODE=current`
 * keeps the Node.js it was started with (an operator who manages Node.js themselves).
 */
export async function onPinnedNode(scriptUrl) {
  if (process.versions.node === NODE_VERSION || process.env.PLATFORM_NODE === 'current') return;
  if (!fs.existsSync(binary)) {
    console.log(
      `Node.js ${process.versions.node} here; fetching Node.js ${NODE_VERSION} (npm ${PACKAGE}) into ${runtimeDir}…`,
    );
    fs.mkdirSync(runtimeDir, { recursive: true });
    const installed = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        runtimeDir,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        `${PACKAGE}@${NODE_VERSION}`,
      ],
      { stdio: 'inherit', cwd: runtimeDir },
    );
    if (installed.status !== 0 || !fs.existsSync(binary))
      throw new Error(`could not fetch Node.js ${NODE_VERSION} from the npm registry (npm exited ${installed.status})`);
  }
  // Its directory first on PATH: the npm, npx and node the script runs use it too; native addons built
  // by `npm install` compile against its own headers.
  const env = {
    ...process.env,
    PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: release,
  };
  const child = spawn(binary, [fileURLToPath(scriptUrl), ...process.argv.slice(2)], { stdio: 'inherit', env });
  // Ctrl-C reaches the whole foreground group; a TERM or HUP sent to this process alone is passed on.
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  process.on('SIGINT', () => undefined);
  const status = await new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  process.exit(status);
}
