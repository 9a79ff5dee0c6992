import { z } from 'zod';

/** Thrown (and, at boot, printed) when the environment does not satisfy an app's schema. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads an app's configuration from the environment and validates it against `shape`.
 * Every problem names the variable so an operator can fix it without reading code.
 */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  source: NodeJS.ProcessEnv = process.env,
): z.infer<z.ZodObject<S>> {
  const result = z.object(shape).safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.');
    const given = source[name];
    return given === undefined || given === ''
      ? `${name}: missing (${issue.message})`
      : `${name}: malformed (${issue.message})`;
  });
  throw new ConfigError(problems);
}
