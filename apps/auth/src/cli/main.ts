#!/usr/bin/env node
/**
 * Admin command line: `node apps/auth/dist/cli/main.js <command> [options]`, with the same environment
 * as the auth app (MONGO_URL, MONGO_DB, REDIS_URL, INTERNAL_SECRET, PUBLIC_URL). Prints JSON. The
 * commands are the table in cli/commands/index.ts.
 */
import { connectMongo, connectRedis } from '@platform/stores';
import { appendAudit } from '../admin/admin-audit';
import { authModels } from '../auth-models';
import { loadAuthConfig } from '../config';
import { signingKeys } from '../keys/signing-keys';
import type { CliContext, CommandLineValues } from './cli-command';
import { cliActor } from './cli-actor';
import { readCommandLine } from './command-line';
import { CLI_COMMANDS } from './commands';
import { newPassword } from './secret-input';

async function main(): Promise<number> {
  const line = readCommandLine(process.argv.slice(2), CLI_COMMANDS);
  if (line.kind === 'usage') {
    process.stdout.write(`${line.text}\n`);
    return line.exitCode;
  }
  if (line.kind === 'unknown-command') {
    process.stderr.write(`${line.text}\n`);
    return 2;
  }
  const { command } = line;
  const values: CommandLineValues = { ...line.values };
  // Read before connecting: a prompt must not hold database connections open while the operator types.
  for (const [name, flag] of Object.entries(command.flags)) {
    if (flag.type === 'secret') values[name] = await newPassword(line.secretsFromStdin.has(name));
  }
  const config = loadAuthConfig();
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = await connectRedis(config.REDIS_URL);
  try {
    const models = await authModels(mongo);
    const keys = signingKeys(mongo, config.INTERNAL_SECRET, { rotateAfterSeconds: Number.MAX_SAFE_INTEGER });
    const ctx: CliContext = { config, deps: { config, redis, ...models }, keys };
    const { output, audit } = await command.run(values, ctx);
    if (command.audit) {
      // A change is audited as the operating-system user (no request id: not an HTTP request).
      if (!audit) throw new Error(`${command.name} made a change without its audit entry`);
      await appendAudit(ctx.deps.adminAudit, { action: command.audit, ...audit, actor: cliActor(), requestId: null });
    }
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return 0;
  } finally {
    await Promise.allSettled([mongo.close(), redis.quit()]);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
