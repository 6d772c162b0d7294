import { CliError } from './errors.ts';

/**
 * The questions `infracat login` asks (Inquirer's prompts, loaded when a terminal is asked). Without a
 * terminal on stdin, they read plain lines instead (a script, a test writing to the child's stdin); with
 * nothing to read they fail with a hint at the non-interactive variables.
 */
let lines: AsyncIterator<string> | undefined;

async function readLine(
  question: string,
  noTerminal = 'set INFRACAT_EMAIL, INFRACAT_PASSWORD (and INFRACAT_TOTP_CODE) instead',
): Promise<string> {
  process.stderr.write(`? ${question}: `);
  if (!lines) {
    const { createInterface } = await import('node:readline');
    lines = createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
  }
  const next = await lines.next();
  process.stderr.write('\n');
  if (next.done) throw new CliError(`No terminal to ask "${question}": ${noTerminal}.`);
  return next.value.trim();
}

const nonEmpty = (v: string) => (v.trim() ? true : 'Required');

export const prompts = {
  input: async (message: string): Promise<string> => {
    if (!process.stdin.isTTY) return readLine(message);
    const { input } = await import('@inquirer/prompts');
    return input({ message, validate: nonEmpty }, { output: process.stderr });
  },
  password: async (message: string): Promise<string> => {
    if (!process.stdin.isTTY) return readLine(message);
    const { password } = await import('@inquirer/prompts');
    return password({ message, mask: '*', validate: nonEmpty }, { output: process.stderr });
  },
  /** `noTerminal`: what to do instead when there is no terminal to answer (e.g. pass --yes). */
  confirm: async (message: string, noTerminal: string): Promise<boolean> => {
    if (process.stdin.isTTY) {
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message, default: false }, { output: process.stderr });
    }
    return /^y(es)?$/i.test(await readLine(`${message} (y/N)`, noTerminal));
  },
};
