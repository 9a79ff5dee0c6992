import { parseArgs } from 'node:util';
import type { CliCommand, CliFlag, CommandLineValues } from './cli-command';
import { secretOnCommandLine } from './secret-input';

/** A command line the CLI refuses before doing anything: printed with the command's usage, exit code 1. */
export class CommandLineError extends Error {}

/** What the command line asks for: the usage text (with its exit code), or a command and its flags. */
type CommandLine =
  | { kind: 'usage'; text: string; exitCode: 0 | 2 }
  | { kind: 'unknown-command'; text: string }
  | { kind: 'command'; command: CliCommand; values: CommandLineValues; secretsFromStdin: Set<string> };

const USAGE_HEAD = 'usage: node apps/auth/dist/cli/main.js <command> [options]';
const USAGE_TAIL = '  (every change is appended to the admin_audit log, as the operating-system user running the CLI)';
const NAME_WIDTH = 16;
const LINE_WIDTH = 118;

function flagText(name: string, flag: CliFlag): string {
  if (flag.type === 'boolean') return `[--${name}]`;
  if (flag.type === 'secret') return `[--${name}-stdin]`;
  const text = `--${name} ${flag.value}${flag.multiple ? '...' : ''}`;
  return flag.required ? text : `[${text}]`;
}

/**
 * One command's lines of the usage text: its flags, wrapped (a flag with a note gets a line of its own,
 * the note beside it), then its summary (beside the name when it has no flags).
 */
function commandUsage(command: CliCommand): string {
  const head = `  ${command.name.padEnd(NAME_WIDTH - 1)}`;
  const indent = ' '.repeat(NAME_WIDTH + 2);
  const rows: string[][] = [[]];
  for (const [name, flag] of Object.entries(command.flags)) {
    const text = flagText(name, flag);
    const row = rows[rows.length - 1]!;
    if (row.length > 0 && (flag.note || indent.length + [...row, text].join(' ').length > LINE_WIDTH)) rows.push([]);
    rows[rows.length - 1]!.push(flag.note ? `${text}  (${flag.note})` : text);
    if (flag.note) rows.push([]);
  }
  const [first, ...more] = rows.filter((row) => row.length > 0).map((row) => row.join(' '));
  if (first === undefined) return `${head} ${command.summary}`;
  return [`${head} ${first}`, ...more.map((row) => `${indent}${row}`), `${indent}${command.summary}`].join('\n');
}

/** The whole usage text, every command of the table in its order. */
export function usageText(commands: readonly CliCommand[]): string {
  return [USAGE_HEAD, ...commands.map(commandUsage), USAGE_TAIL].join('\n');
}

/** The secret flags of every command: given as `--<name>` to any command, refused with a message naming the ways that are allowed. */
function refuseSecrets(args: readonly string[], commands: readonly CliCommand[]): void {
  const secrets = new Set(
    commands.flatMap((c) =>
      Object.entries(c.flags)
        .filter(([, f]) => f.type === 'secret')
        .map(([name]) => name),
    ),
  );
  for (const arg of args) {
    if (arg === '--') return;
    const name = /^--([^=]+)/.exec(arg)?.[1];
    if (name && secrets.has(name)) throw secretOnCommandLine(`--${name}`);
  }
}

/**
 * Reads `<command> [flags]` against the table: the command comes first; a flag it does not declare, a
 * flag without its value, a value for a flag that takes none, an extra argument or a missing required
 * flag is a `CommandLineError` that names it. `--help` prints the usage (of the command, when one is named).
 */
export function readCommandLine(args: readonly string[], commands: readonly CliCommand[]): CommandLine {
  const name = args[0];
  if (name === undefined || name.startsWith('-')) {
    // No command (or only flags): the usage on standard output, and a failing exit code for scripts.
    return { kind: 'usage', text: usageText(commands), exitCode: 2 };
  }
  const command = commands.find((c) => c.name === name);
  if (!command) return { kind: 'unknown-command', text: `unknown command ${name}\n${usageText(commands)}` };
  const rest = args.slice(1);
  if (rest.includes('--help'))
    return { kind: 'usage', text: `${USAGE_HEAD}\n${commandUsage(command)}\n${USAGE_TAIL}`, exitCode: 0 };
  refuseSecrets(rest, commands);

  const flags = new Map<string, CliFlag>();
  const secretsFromStdin = new Set<string>();
  for (const [flagName, flag] of Object.entries(command.flags))
    flags.set(flag.type === 'secret' ? `${flagName}-stdin` : flagName, flag);
  const options = Object.fromEntries(
    [...flags].map(([flagName, flag]) => [
      flagName,
      {
        type: flag.type === 'string' ? 'string' : 'boolean',
        multiple: flag.type === 'string' && flag.multiple === true,
      } as const,
    ]),
  );
  const fail = (message: string) => new CommandLineError(`${name}: ${message}\n${commandUsage(command)}`);
  // Not strict: node's messages name neither the command nor its flags; the tokens are checked here.
  const { tokens } = parseArgs({ args: [...rest], options, strict: false, allowPositionals: true, tokens: true });
  const values: CommandLineValues = {};
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional')
      throw fail(`unexpected argument ${JSON.stringify(token.value)} (a value with spaces is one quoted argument)`);
    const flag = flags.get(token.name);
    if (!flag) throw fail(`unknown flag ${token.rawName}`);
    if (flag.type !== 'string') {
      if (token.value !== undefined) throw fail(`${token.rawName} takes no value`);
      if (flag.type === 'secret') secretsFromStdin.add(token.name.slice(0, -'-stdin'.length));
      else values[token.name] = true;
      continue;
    }
    // A value that looks like a flag is the flag after a missing value (write `--name=-x` for such a value).
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))
      throw fail(`${token.rawName} needs a value`);
    if (flag.multiple) values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), token.value];
    else values[token.name] = token.value;
  }
  for (const [flagName, flag] of flags) {
    if (flag.type === 'string' && flag.required && values[flagName] === undefined)
      throw fail(`--${flagName} is required`);
  }
  return { kind: 'command', command, values, secretsFromStdin };
}
