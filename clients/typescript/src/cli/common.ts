import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError } from './errors.ts';
import { connect, type Connected, type GlobalOptions } from './context.ts';
import { FORMATS, type Format } from './output.ts';
import { target, type Target } from './target.ts';

export interface CommandOptions extends GlobalOptions {
  output: Format;
  [flag: string]: unknown;
}

/** `-o table|json|yaml` on a command. */
export const withOutput = (cmd: Command) =>
  cmd.addOption(new Option('-o, --output <format>', 'output format').choices(FORMATS).default('table'));

/** `--project` / `--env` on a command (defaults: what `infracat use` chose). */
export const withTarget = (cmd: Command) =>
  cmd
    .option('-p, --project <project>', 'project name or id (default: the one `infracat use` chose)')
    .option('-e, --env <environment>', 'environment name or id');

/** Examples at the end of a command's --help. */
export const examples = (cmd: Command, ...lines: string[]) =>
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);

/** The options of the command with the program's (`--url`). */
export const optionsOf = (cmd: Command) => cmd.optsWithGlobals() as CommandOptions;

/** Connects and resolves the target for a command. */
export async function inTarget(cmd: Command, needEnv = true): Promise<{ c: Connected; t: Target; o: CommandOptions }> {
  const o = optionsOf(cmd);
  const c = await connect(o);
  return { c, t: await target(c, o, needEnv), o };
}

/** Collects a repeatable option. */
export const many = (value: string, previous: string[] = []) => [...previous, value];

/** `--set key=value` pairs: a value that reads as JSON is taken as JSON (numbers, booleans, lists, null), else as text. */
export function fieldsOf(pairs: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new CliError(`--set takes key=value, not '${pair}'`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      /* text */
    }
    out[pair.slice(0, at)] = value;
  }
  return out;
}

/** Drops undefined values. */
export const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`not a whole number: ${v}`);
  return n;
};
