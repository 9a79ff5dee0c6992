import type { CliCommand } from '../cli-command';
import { listAuditCommand } from './admin-log';
import { createApiKeyCommand, listApiKeysCommand, revokeApiKeyCommand } from './api-keys';
import {
  createAccountCommand,
  findAccountsCommand,
  getAccountCommand,
  listAccountsCommand,
  unlockLoginsCommand,
  updateAccountCommand,
} from './accounts';
import {
  createClientCommand,
  deleteClientCommand,
  getClientCommand,
  listClientsCommand,
  rotateClientSecretCommand,
  updateClientCommand,
} from './clients';
import { createRegistrationTokenCommand, deleteRegistrationTokenCommand } from './registration-tokens';
import { listKeysCommand, retireKeyCommand, rotateKeyCommand } from './signing-keys';

/**
 * Every command of the admin CLI, in the order of its usage text. The dispatcher (cli/main.ts), the
 * usage text and flag validation (cli/command-line.ts) read this table: a new command is a descriptor
 * in its subject's file (`cliCommand`, cli/cli-command.ts) and one line here.
 */
export const CLI_COMMANDS: readonly CliCommand[] = [
  createClientCommand,
  listClientsCommand,
  getClientCommand,
  updateClientCommand,
  rotateClientSecretCommand,
  deleteClientCommand,
  createAccountCommand,
  listAccountsCommand,
  updateAccountCommand,
  getAccountCommand,
  findAccountsCommand,
  unlockLoginsCommand,
  createApiKeyCommand,
  listApiKeysCommand,
  revokeApiKeyCommand,
  listKeysCommand,
  rotateKeyCommand,
  retireKeyCommand,
  listAuditCommand,
  createRegistrationTokenCommand,
  deleteRegistrationTokenCommand,
];
