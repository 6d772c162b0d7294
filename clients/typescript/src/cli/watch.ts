import type { Command } from 'commander';
import { examples, inTarget, int, withOutput, withTarget } from './common.ts';
import { say } from './output.ts';

/** The name a change's item goes by in a line of text (a service's name, a server's hostname, …). */
const labelOf = (item: Record<string, unknown> | undefined) => String(item?.name ?? item?.hostname ?? item?.cidr ?? '');

/**
 * `watch`: the environment's changes as they come (the live WebSocket, resumed after a dropped connection
 * without missing one), until interrupted: a line each (`-o json`: one JSON object a line, as the service
 * sends it), for scripts that react to the catalog without running a webhook receiver.
 */
export function watchCommand(program: Command) {
  examples(
    withTarget(withOutput(program.command('watch').description("print the environment's changes as they come")))
      .option('--since <seq>', 'first replay the changes after this seq (kept for 24 hours)', int)
      .action(async (_o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const { followEnvironment } = await import('../live.ts');
        const stop = new AbortController();
        process.once('SIGINT', () => stop.abort());
        process.once('SIGTERM', () => stop.abort());
        const json = o.output === 'json';
        await followEnvironment(
          c.client,
          { project_id: t.project.id, environment_id: t.environment.id },
          {
            since: o.since as number | undefined,
            signal: stop.signal,
            onStatus: (s) => {
              // On stderr, so `-o json`'s stdout stays one change a line.
              if (s !== 'ended') say(`${s} (${t.project.name}/${t.environment.name})`);
            },
            onReload: (seq) => say(`changes before ${seq} are no longer kept: read the environment again`),
            onChange: (ch) => {
              process.stdout.write(
                json
                  ? `${JSON.stringify(ch)}\n`
                  : `${ch.seq}\t${ch.at}\t${ch.op}\t${ch.kind}\t${ch.id}\t${labelOf(ch.item)}\n`,
              );
            },
          },
        );
      }),
    'infracat watch',
    'infracat watch -o json | jq -c \'select(.kind == "service")\'',
    'infracat watch --since 1200',
  );
}
