import type { AuditEntryDoc } from '../admin/admin-audit';
import type { AuthConfig } from '../config';
import type { Deps } from '../deps';
import type { SigningKeys } from '../keys/signing-keys';

/**
 * One flag of a CLI command. `string` takes a value (`--name N` or `--name=N`), repeatable with
 * `multiple`; `boolean` takes none. `secret` never comes on the command line (the process table shows
 * it): `--<name>` is refused, the value is typed at a prompt or piped with `--<name>-stdin`
 * (cli/secret-input.ts).
 */
export type CliFlag =
  | {
      type: 'string';
      multiple?: boolean;
      required?: boolean;
      /** In the usage text: `--name N`. */ value: string;
      note?: string;
    }
  | { type: 'boolean'; note?: string }
  | { type: 'secret'; note?: string };

type CliFlags = Readonly<Record<string, CliFlag>>;

/** The flags of a command line as read (cli/command-line.ts), before a command's declaration types them. */
export type CommandLineValues = Record<string, string | string[] | boolean | undefined>;

/**
 * What a handler receives: each flag's value, typed by its declaration (a required flag is never
 * undefined). For the table's erased type (any flags), the values as read.
 */
type CliValues<F extends CliFlags> = string extends keyof F
  ? CommandLineValues
  : {
      [K in keyof F]: F[K] extends { type: 'boolean' }
        ? boolean
        : F[K] extends { type: 'secret' }
          ? string
          : F[K] extends { multiple: true }
            ? F[K] extends { required: true }
              ? string[]
              : string[] | undefined
            : F[K] extends { required: true }
              ? string
              : string | undefined;
    };

/** What the commands share: auth's configuration, its stores and its signing keys. */
export interface CliContext {
  config: AuthConfig;
  deps: Pick<
    Deps,
    'config' | 'redis' | 'clients' | 'refreshTokens' | 'accounts' | 'apiKeys' | 'adminAudit' | 'logoutDeliveries'
  >;
  keys: SigningKeys;
}

/** The audit entry of a change: the dispatcher appends it under the command's `audit` action. */
interface CliAudit {
  target: AuditEntryDoc['target'];
  changes: Record<string, unknown>;
}

/** A handler's answer: what is printed (JSON), and for a change, what the audit log records. */
interface CliResult {
  output: unknown;
  audit?: CliAudit;
}

/**
 * A command of the admin CLI (`node apps/auth/dist/cli/main.js <name> [flags]`): the table in
 * cli/commands.ts lists them; the dispatcher, the usage text and flag validation derive from it.
 */
export interface CliCommand<F extends CliFlags = CliFlags> {
  name: string;
  /** One line in the usage text, under the flags. */
  summary: string;
  flags: F;
  /** The `admin_audit` action of a command that changes something; its handler returns `audit`. */
  audit?: string;
  run(values: CliValues<F>, ctx: CliContext): Promise<CliResult>;
}

/**
 * Declares a command, its handler typed by its flags (no `as const` needed). The table holds it erased:
 * sound because the dispatcher hands `run` only values read against these same flags.
 */
export function cliCommand<const F extends CliFlags>(command: CliCommand<F>): CliCommand {
  return command as unknown as CliCommand;
}
