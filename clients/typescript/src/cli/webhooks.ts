import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { defined, examples, inTarget, int, many, withOutput } from './common.ts';
import { CliError } from './errors.ts';
import { col, emit, say } from './output.ts';

type Webhook = paths['/projects/{project_id}/webhooks']['post']['responses'][201]['content']['application/json'];
type EventType = Webhook['events'][number];

const withProject = (cmd: Command) =>
  cmd.option('-p, --project <project>', 'project name or id (default: the one `infracat use` chose)');
const WEBHOOK_COLUMNS = [
  col<Webhook>('URL', 'url'),
  col<Webhook>('EVENTS', 'events'),
  col<Webhook>('ENABLED', 'enabled'),
  col<Webhook>('FAILING_SINCE', 'failing_since'),
  col<Webhook>('ID', 'id'),
];

/** The webhook with its signing secret, which the service shows only in this answer (create, rotate): said so on stderr. */
function emitWithSecret(webhook: Webhook, format: Parameters<typeof emit>[1]) {
  emit(webhook, format);
  if (format === 'table')
    say('Keep the secret now: the service shows it only once (receivers check X-Service-Signature with it).');
}

export function webhookCommands(program: Command) {
  const webhooks = program.command('webhooks').description("the project's webhooks and their deliveries");
  examples(
    withOutput(withProject(webhooks.command('ls').description('list webhooks'))).action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd, false);
      const { data } = await c.client.api.GET('/projects/{project_id}/webhooks', {
        params: { path: { project_id: t.project.id } },
      });
      emit(data! as Webhook[], o.output, WEBHOOK_COLUMNS);
    }),
    'infracat webhooks ls',
  );
  examples(
    withOutput(
      withProject(webhooks.command('deliveries <webhook>').description('recent deliveries of a webhook (its id)')),
    )
      .option('--status <status>', 'pending, succeeded or failed')
      .option('--limit <n>', 'at most (1-100)', int)
      .action(async (webhook, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd, false);
        const query = {
          ...(o.status ? { status: o.status as 'pending' } : {}),
          ...(o.limit ? { limit: o.limit as number } : {}),
        };
        const { data } = await c.client.api.GET('/projects/{project_id}/webhooks/{webhook_id}/deliveries', {
          params: { path: { project_id: t.project.id, webhook_id: webhook }, query },
        });
        emit(data!, o.output, [
          col('CREATED', 'created_at'),
          col('EVENT', 'event_type'),
          col('STATUS', 'status'),
          col('ATTEMPTS', 'attempt_count'),
          col('LAST_CODE', 'last_status_code'),
          col('ID', 'id'),
        ]);
      }),
    'infracat webhooks deliveries 5b1e… --status failed',
  );
  examples(
    withOutput(
      withProject(webhooks.command('redeliver <webhook> <delivery>').description('send a delivery again')),
    ).action(async (webhook, delivery, _o, cmd) => {
      const { c, t, o } = await inTarget(cmd, false);
      const { data } = await c.client.api.POST(
        '/projects/{project_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
        {
          params: { path: { project_id: t.project.id, webhook_id: webhook, delivery_id: delivery } },
        },
      );
      emit(data!, o.output, [
        col('EVENT', 'event_type'),
        col('STATUS', 'status'),
        col('ATTEMPTS', 'attempt_count'),
        col('LAST_CODE', 'last_status_code'),
        col('ID', 'id'),
      ]);
    }),
    'infracat webhooks redeliver 5b1e… 9a7c…',
  );

  const eventsOf = (o: Record<string, unknown>) => o.event as EventType[] | undefined;
  examples(
    withOutput(
      withProject(webhooks.command('create <url>').description('register a webhook (prints its signing secret once)')),
    )
      .requiredOption(
        '--event <type>',
        'an event to send (repeatable): service.created, service.updated, service.deleted, floor.created, …',
        many,
      )
      .option('--description <text>')
      .action(async (url, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd, false);
        const body = { url, events: eventsOf(o)!, ...defined({ description: o.description }) };
        emitWithSecret(
          (
            await c.client.api.POST('/projects/{project_id}/webhooks', {
              params: { path: { project_id: t.project.id } },
              body,
            })
          ).data!,
          o.output,
        );
      }),
    'infracat webhooks create https://hooks.example.com/catalog --event service.created --event service.deleted',
  );
  examples(
    withOutput(withProject(webhooks.command('update <webhook>').description('change a webhook (its id)')))
      .option('--url <url>')
      .option('--event <type>', 'an event to send (repeatable; replaces the list)', many)
      .option('--description <text>')
      .option('--enable', 'send deliveries again')
      .option('--disable', 'stop sending deliveries')
      .action(async (webhook, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd, false);
        if (o.enable && o.disable) throw new CliError('--enable or --disable, not both.');
        const body = defined({
          url: o.url,
          events: eventsOf(o),
          description: o.description,
          enabled: o.enable ? true : o.disable ? false : undefined,
        });
        if (!Object.keys(body).length)
          throw new CliError('Nothing to change: pass --url, --event, --description, --enable or --disable.');
        const { data } = await c.client.api.PATCH('/projects/{project_id}/webhooks/{webhook_id}', {
          params: { path: { project_id: t.project.id, webhook_id: webhook } },
          body,
        });
        emit(data!, o.output);
      }),
    'infracat webhooks update 5b1e… --event service.updated',
    'infracat webhooks update 5b1e… --disable',
  );
  examples(
    withOutput(
      withProject(
        webhooks
          .command('rotate <webhook>')
          .description('a new signing secret (printed once); the old one is still accepted for a while'),
      ),
    ).action(async (webhook, _o, cmd) => {
      const { c, t, o } = await inTarget(cmd, false);
      const { data } = await c.client.api.POST('/projects/{project_id}/webhooks/{webhook_id}/rotate-secret', {
        params: { path: { project_id: t.project.id, webhook_id: webhook } },
      });
      emitWithSecret(data!, o.output);
    }),
    'infracat webhooks rotate 5b1e…',
  );
  examples(
    withProject(webhooks.command('rm <webhook>').description('delete a webhook')).action(async (webhook, _o, cmd) => {
      const { c, t } = await inTarget(cmd, false);
      await c.client.api.DELETE('/projects/{project_id}/webhooks/{webhook_id}', {
        params: { path: { project_id: t.project.id, webhook_id: webhook } },
      });
      say(`Deleted webhook ${webhook}`);
    }),
    'infracat webhooks rm 5b1e…',
  );
}
