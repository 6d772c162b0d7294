import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { examples, inTarget, int, optionsOf, withOutput } from './common.ts';
import { connect } from './context.ts';
import { col, emit } from './output.ts';

type AuditEntry = NonNullable<
  paths['/projects/{project_id}/audit-log']['get']['responses'][200]['content']['application/json']
>[number];

/** `audit`: the project's audit log, newest first, or the caller's own (`--me`). */
export function auditCommand(program: Command) {
  examples(
    withOutput(program.command('audit').description("the project's audit log, newest first (--me: your account's)"))
      .option('-p, --project <project>', 'project name or id')
      .option('--me', "your account's log instead")
      .option('--limit <n>', 'at most this many entries (default 50; 0: all)', int, 50)
      .option('--entity-type <type>')
      .option('--entity <id>', 'entity id')
      .option('--actor <id>', 'actor account id')
      .option('--action <action>', 'e.g. service.update')
      .option('--since <time>', 'ISO 8601')
      .option('--until <time>', 'ISO 8601')
      .action(async (_o, cmd) => {
        const o = optionsOf(cmd);
        const filters = Object.fromEntries(
          Object.entries({
            entity_type: o.entityType,
            entity_id: o.entity,
            actor_id: o.actor,
            action: o.action,
            since: o.since,
            until: o.until,
          }).filter(([, v]) => v !== undefined),
        );
        const limit = (o.limit as number) || Infinity;
        const { collect } = await import('../paging.ts');
        let entries: AuditEntry[];
        if (o.me)
          entries = (await collect((await connect(o)).client.myAuditLog(filters), limit)) as unknown as AuditEntry[]; // the same entries, without project fields
        else {
          const { c, t } = await inTarget(cmd, false);
          entries = await collect(c.client.auditLog(t.project.id, filters), limit);
        }
        emit(entries, o.output, [
          col('AT', 'at'),
          col('ACTION', 'action'),
          col('ENTITY', (e) => `${e.entity_type} ${e.entity_id ?? ''}`.trim()),
          col('ACTOR', (e) => (e.actor as { email?: string } | null)?.email ?? ''),
        ]);
      }),
    'infracat audit',
    'infracat audit --action service.update --since 2026-01-01 -o json',
    'infracat audit --me --limit 0',
  );
}
