/**
 * Secrets for the admin CLI, never from its arguments: the process table (`ps`), shell history and CI
 * logs show a command line to anyone on the machine. A secret is typed at a prompt that does not echo
 * (standard input a terminal) or piped in with `--password-stdin` (scripts).
 */

const STDIN_MAX_BYTES = 4096;

/** The message for a secret given as an argument, naming the ways that are allowed. */
export function secretOnCommandLine(flag: string): Error {
  return new Error(
    `${flag} is not accepted: the process table would show it. Type the password at the prompt, or pipe it with --password-stdin (e.g. printf '%s' "$PASSWORD" | ... --password-stdin)`,
  );
}

/** All of standard input, less one trailing newline (what `echo` and here-strings add). */
export async function readSecretFromStdin(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > STDIN_MAX_BYTES)
      throw new Error(`--password-stdin: more than ${STDIN_MAX_BYTES} bytes on standard input`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** One line typed at the terminal without echo (raw mode); Ctrl-C cancels. */
export function promptHidden(
  question: string,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<string> {
  output.write(question);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          reject(new Error('cancelled'));
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    input.on('data', onData);
  });
}

/**
 * The new password of an account: from standard input with `--password-stdin`, else typed twice at
 * the terminal's prompt; with neither (a script without a terminal) an error that names both.
 */
export async function newPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readSecretFromStdin();
  if (!process.stdin.isTTY)
    throw new Error('the password is needed: run on a terminal to be prompted, or pipe it with --password-stdin');
  const first = await promptHidden('Password: ');
  if ((await promptHidden('Repeat password: ')) !== first) throw new Error('the passwords typed do not match');
  return first;
}
