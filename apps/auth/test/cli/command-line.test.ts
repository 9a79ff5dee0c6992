import { CLI_COMMANDS } from '../../src/cli/commands';
import { cliCommand } from '../../src/cli/cli-command';
import { CommandLineError, readCommandLine, usageText } from '../../src/cli/command-line';

// The admin CLI's command line, read against its table (cli/commands/index.ts): what a command
// receives, and the errors for what it does not declare, before anything connects.
const read = (...args: string[]) => readCommandLine(args, CLI_COMMANDS);
const refusal = (...args: string[]) => {
  try {
    read(...args);
  } catch (err) {
    expect(err).toBeInstanceOf(CommandLineError);
    return (err as Error).message;
  }
  throw new Error(`expected ${args.join(' ')} to be refused`);
};

describe('the CLI command table', () => {
  it('names each command once, and the usage text lists every command and every flag it declares', () => {
    const names = CLI_COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const usage = usageText(CLI_COMMANDS);
    for (const command of CLI_COMMANDS) {
      expect(usage).toContain(`  ${command.name} `);
      for (const [flag, declared] of Object.entries(command.flags))
        expect(usage).toContain(declared.type === 'secret' ? `--${flag}-stdin` : `--${flag}`);
    }
  });

  it('hands a command its flags: repeated ones as lists, `--flag=value`, an empty value, booleans', () => {
    const line = read(
      'clients:create',
      '--name',
      'App',
      '--type=public',
      '--grant',
      'authorization_code',
      '--grant',
      'refresh_token',
      '--no-secret',
      '--backchannel-logout-uri',
      '',
    );
    expect(line).toMatchObject({ kind: 'command', command: { name: 'clients:create' } });
    expect(line.kind === 'command' && line.values).toEqual({
      name: 'App',
      type: 'public',
      grant: ['authorization_code', 'refresh_token'],
      'no-secret': true,
      'backchannel-logout-uri': '',
    });
  });

  it('refuses a flag the command does not declare, a flag without its value, a value for a boolean, an extra argument, a missing required flag', () => {
    expect(refusal('clients:list', '--kid', 'k1')).toMatch(/^clients:list: unknown flag --kid\n {2}clients:list /);
    expect(refusal('clients:get', '--id')).toMatch(/^clients:get: --id needs a value/);
    expect(refusal('clients:get', '--id', '--name', 'x')).toMatch(/^clients:get: --id needs a value/);
    expect(
      refusal('clients:create', '--name', 'A', '--type', 'public', '--grant', 'refresh_token', '--no-secret=yes'),
    ).toMatch(/--no-secret takes no value/);
    expect(
      refusal(
        'clients:create',
        '--name',
        'A',
        '--type',
        'public',
        '--grant',
        'refresh_token',
        '--scope',
        'content:read',
        'offline_access',
      ),
    ).toMatch(/unexpected argument "offline_access"/);
    expect(refusal('clients:delete')).toMatch(/^clients:delete: --id is required/);
    expect(refusal('accounts:create', '--name', 'No Email', '--password-stdin')).toMatch(/--email is required/);
  });

  it('refuses a secret on the command line, for any command, without echoing it', () => {
    for (const args of [
      ['accounts:create', '--email', 'a@example.org', '--name', 'A', '--password', 'hunter2 long'],
      ['clients:list', '--password=hunter2 long'],
    ]) {
      let message = '';
      try {
        read(...args);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^--password is not accepted: .*--password-stdin/);
      expect(message).not.toContain('hunter2');
    }
    const line = read('accounts:create', '--email', 'a@example.org', '--name', 'A', '--password-stdin');
    expect(line.kind === 'command' && [...line.secretsFromStdin]).toEqual(['password']);
  });

  it('usage: no command exits 2 on standard output; --help after a command shows that command; an unknown command is named', () => {
    expect(read()).toMatchObject({ kind: 'usage', exitCode: 2, text: usageText(CLI_COMMANDS) });
    expect(read('--help')).toMatchObject({ kind: 'usage', exitCode: 2 });
    const help = read('keys:retire', '--help');
    expect(help).toMatchObject({
      kind: 'usage',
      exitCode: 0,
      text: expect.stringContaining('keys:retire     --kid KID'),
    });
    expect(help.kind === 'usage' && help.text).not.toContain('clients:create');
    expect(read('keys:nope')).toMatchObject({
      kind: 'unknown-command',
      text: expect.stringMatching(/^unknown command keys:nope\nusage:/),
    });
  });

  it('a new command is one descriptor: its usage and its flag checks follow from it', () => {
    const ping = cliCommand({
      name: 'ping:send',
      summary: 'answers pong',
      flags: { times: { type: 'string', value: 'N', required: true } },
      run: async (values) => ({ output: values.times }),
    });
    expect(usageText([ping])).toContain('  ping:send       --times N\n                  answers pong');
    expect(() => readCommandLine(['ping:send'], [ping])).toThrow('ping:send: --times is required');
    expect(readCommandLine(['ping:send', '--times', '3'], [ping])).toMatchObject({
      kind: 'command',
      values: { times: '3' },
    });
  });
});
