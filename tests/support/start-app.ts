import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './stack-env';

export interface StartAppOptions {
  /** Folder under apps/ (gateway, auth, content, synthesis-worker). */
  app: string;
  env: Record<string, string>;
  /** How long to wait for `/readyz` to answer 200. */
  readyTimeoutMs?: number;
  /** Wait for readiness (default) or only for the process to spawn. */
  waitReady?: boolean;
}

export interface RunningApp {
  url: string;
  process: ChildProcess;
  /** Everything the app printed so far (JSON log lines). */
  output: () => string;
  /** Sends SIGTERM (or the given signal) and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Starts a built app (`apps/<app>/dist/main.js`) as a child process, the way operators run it,
 * and waits until its `/readyz` answers 200.
 */
export async function startApp(options: StartAppOptions): Promise<RunningApp> {
  const root = repoRoot();
  const entry = path.join(root, 'apps', options.app, 'dist', 'main.js');
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = options.env.PORT;
  const url = `http://127.0.0.1:${port ?? ''}`;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  if (options.waitReady === false) return { url, process: child, output: () => output, stop, exited };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  while (Date.now() < deadline) {
    if (exitedEarly) throw new Error(`${options.app} exited before it was ready:\n${output}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return { url, process: child, output: () => output, stop, exited };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop('SIGKILL');
  throw new Error(`${options.app} was not ready within ${options.readyTimeoutMs ?? 30_000} ms:\n${output}`);
}
