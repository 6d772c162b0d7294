import type { Command } from 'commander';

/** Commander has no completion of its own: these scripts are generated from the program's commands, so they follow every new one. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

interface Words {
  /** Top-level command names (aliases included). */
  commands: string[];
  /** Per command: its subcommands and long options. */
  under: Map<string, string[]>;
  /** The program's own options. */
  global: string[];
}

const longFlags = (cmd: Command) => cmd.options.map((o) => o.long).filter((l): l is string => !!l);
const namesOf = (cmd: Command) => [cmd.name(), ...cmd.aliases()];

export function wordsOf(program: Command): Words {
  const under = new Map<string, string[]>();
  const commands: string[] = [];
  for (const cmd of program.commands) {
    const words = [...cmd.commands.flatMap(namesOf), ...longFlags(cmd), '--help'];
    for (const name of namesOf(cmd)) {
      commands.push(name);
      under.set(name, words);
    }
  }
  return { commands, under, global: [...new Set([...longFlags(program), '--help', '--version'])] };
}

function bash(w: Words): string {
  const cases = [...w.under].map(([name, words]) => `    ${name}) words="${words.join(' ')}" ;;`).join('\n');
  return `# infracat completion for bash: eval "$(infracat completion bash)" (e.g. in ~/.bashrc)
_infracat() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words
  if [ "$COMP_CWORD" -eq 1 ]; then words="${[...w.commands, ...w.global].join(' ')}"
  else case "\${COMP_WORDS[1]}" in
${cases}
    *) words="${w.global.join(' ')}" ;;
  esac; fi
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _infracat infracat
`;
}

function zsh(w: Words): string {
  const cases = [...w.under].map(([name, words]) => `    ${name}) compadd -- ${words.join(' ')} ;;`).join('\n');
  return `#compdef infracat
# infracat completion for zsh: eval "$(infracat completion zsh)" (e.g. in ~/.zshrc, after compinit)
_infracat() {
  if (( CURRENT == 2 )); then compadd -- ${[...w.commands, ...w.global].join(' ')}; return; fi
  case "\${words[2]}" in
${cases}
    *) _files ;;
  esac
}
compdef _infracat infracat
`;
}

function fish(w: Words): string {
  const lines = [
    '# infracat completion for fish: infracat completion fish > ~/.config/fish/completions/infracat.fish',
    `complete -c infracat -n __fish_use_subcommand -f -a '${w.commands.join(' ')}'`,
  ];
  for (const [name, words] of w.under) {
    const subs = words.filter((x) => !x.startsWith('-'));
    if (subs.length)
      lines.push(`complete -c infracat -n '__fish_seen_subcommand_from ${name}' -f -a '${subs.join(' ')}'`);
    for (const flag of words.filter((x) => x.startsWith('--')))
      lines.push(`complete -c infracat -n '__fish_seen_subcommand_from ${name}' -l ${flag.slice(2)}`);
  }
  return `${lines.join('\n')}\n`;
}

export const completionScript = (program: Command, shell: Shell): string =>
  ({ bash, zsh, fish })[shell](wordsOf(program));
