import { scrubSecrets } from '@platform/logger';

/**
 * Boot failures (bad configuration, a dependency that never answered) end the process with a
 * message that says what is wrong, on stderr for humans and as one JSON line for log collectors,
 * without secrets (a connection error may print its URL's password).
 */
export function exitOnBootFailure(service: string): (err: unknown) => never {
  return (err: unknown) => {
    const message = scrubSecrets(err instanceof Error ? err.message : String(err));
    process.stderr.write(`${service}: failed to start: ${message}\n`);
    process.stdout.write(
      `${JSON.stringify({ level: 60, time: new Date().toISOString(), service, msg: 'failed to start', error: message })}\n`,
    );
    process.exit(1);
  };
}
