import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { reloadConfig } from '#shared/config';
import { resetClients } from '#shared/clients';
import { resetPlanCache } from '#domain/billing';
import { ensureStaff } from '#domain/identity';
import { resetSigningKey } from '#auth/signing-key';
import { forgetVerifiedTokens } from '#auth/tokens';
import { spawnOwnDynamo, type StartingDynamo } from './dynamo.ts';
import { startS3, type LocalS3 } from './s3.ts';
import { configureFaults } from '#shared/faults';
import { startLocalQueues } from './queues.ts';
import { appContext, type Clock } from '#shared/context';
import { bootstrapData } from './bootstrap.ts';
import { sweepDeadlines } from '#domain/lifecycle';
import { errorFields, log } from '#shared/log';
import { forwardOutbox, resendStaleOutbox } from '#shared/outbox';
import { readTableStream } from './table-stream.ts';
import { sweepWebhookRetries } from '#domain/webhooks';
import { startTopologyStream } from './topology-stream.ts';

export interface LocalStackOptions {
  /** Environment overrides (the configuration is re-read with them). */
  env?: Record<string, string>;
  /** An already running DynamoDB Local (tests share one); otherwise one is started. */
  dynamoEndpoint?: string;
  /** The stack's own DynamoDB Local, spawned already (`npm start` spawns it before loading the app, see `spawnOwnDynamo`): waited for, and stopped with the stack. */
  dynamo?: StartingDynamo;
  /** Keep DynamoDB data in memory instead of under LOCAL_DATA_DIR. */
  inMemory?: boolean;
  /** A one-shot command's own DynamoDB Local starts with the quick-start flags (`spawnDynamo`): it answers sooner, for less CPU. */
  quickStart?: boolean;
  /** Skip s3rver (routes that need S3 come later; tests that do not touch S3 start faster). */
  withoutS3?: boolean;
  /** Don't listen for HTTP (benchmarks and `npm run invoke` call handlers directly). */
  withoutHttp?: boolean;
  /** The handlers' clock (tests move it); the system clock otherwise. */
  clock?: Clock;
  /** One readable line per HTTP request on stdout (`npm start`). */
  accessLog?: boolean;
}

/** The whole product on one machine: DynamoDB Local, s3rver, table and plans, in-process queues, the HTTP server. */
export async function startLocalStack(opts: LocalStackOptions = {}) {
  let c = reloadConfig(opts.env);
  let dynamo: StartingDynamo | undefined = opts.dynamo;
  let s3: LocalS3 | undefined;
  const env: Record<string, string> = { ...opts.env };
  if (!dynamo && !opts.dynamoEndpoint && !c.DYNAMODB_ENDPOINT) dynamo = await spawnOwnDynamo(c, opts);
  env.DYNAMODB_ENDPOINT = dynamo ? dynamo.endpoint : (opts.dynamoEndpoint || c.DYNAMODB_ENDPOINT)!;
  // s3rver starts while DynamoDB Local's JVM does.
  const s3Started =
    !opts.withoutS3 && !c.S3_ENDPOINT ? startS3(join(c.LOCAL_DATA_DIR, 's3'), c.BUCKET_NAME) : undefined;
  try {
    [s3] = await Promise.all([s3Started, dynamo?.ready]);
  } catch (err) {
    await Promise.allSettled([s3Started?.then((started) => started.stop()), dynamo?.stop()]);
    throw err;
  }
  if (s3) env.S3_ENDPOINT = s3.endpoint;
  c = reloadConfig(env);
  resetClients();
  resetPlanCache();
  resetSigningKey();
  forgetVerifiedTokens();

  await bootstrapData(c.TABLE_NAME, { stream: c.LOCAL_STREAM_POLL_MS > 0 });
  if (c.BOOTSTRAP_ADMIN_EMAIL && c.BOOTSTRAP_ADMIN_PASSWORD)
    await ensureStaff(appContext(), { email: c.BOOTSTRAP_ADMIN_EMAIL, password: c.BOOTSTRAP_ADMIN_PASSWORD });
  // Faults strike what the product does, not the set-up above; clients made from here on carry them.
  configureFaults(c.FAULTS, c.FAULTS_SEED);
  resetClients();
  const localQueues = startLocalQueues();
  // The cloud's table stream, locally: the outbox is read into the events and mail queues on a timer, and by every drain.
  const forward = () => forwardOutbox().catch((err) => log.error('outbox not read', errorFields(err)));
  const outboxPoller = c.LOCAL_OUTBOX_POLL_MS
    ? setInterval(() => void forward(), c.LOCAL_OUTBOX_POLL_MS).unref()
    : undefined;
  // The cloud's webhook retry schedule, locally: due attempts, and outbox items waiting long after their write handed over again.
  const sweepRetries = () => {
    const ctx = appContext({ clock: opts.clock });
    void sweepWebhookRetries(ctx).catch((err) => log.error('webhook retry sweep failed', errorFields(err)));
    void resendStaleOutbox(ctx).catch((err) => log.error('outbox resend sweep failed', errorFields(err)));
  };
  // The cloud's table stream into the topology snapshots' keeper, locally: this process's writes.
  const topologyStream = startTopologyStream(opts.clock, c.LOCAL_OUTBOX_POLL_MS);
  const retrySweeper = c.LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS
    ? setInterval(sweepRetries, c.LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS * 1000).unref()
    : undefined;
  const queues = {
    ...localQueues,
    /**
     * Waits for every queued message (and its retries) and every event: workers write events too, so the
     * outbox is read again after each drain until a read finds nothing new.
     */
    async drain(): Promise<void> {
      await localQueues.drain();
      while (((await forward()) ?? 0) > 0) await localQueues.drain();
      await topologyStream.settle();
    },
  };
  // The cloud's 15-minute schedule, locally: the same sweep on a timer.
  const sweeper = c.LOCAL_DEADLINE_SWEEP_SECONDS
    ? setInterval(
        () =>
          void sweepDeadlines(appContext({ clock: opts.clock })).catch((err) =>
            log.error('deadline sweep failed', errorFields(err)),
          ),
        c.LOCAL_DEADLINE_SWEEP_SECONDS * 1000,
      ).unref()
    : undefined;

  // The cloud's table stream into the outbox function's live part.
  const stream = c.LOCAL_STREAM_POLL_MS
    ? readTableStream({
        endpoint: env.DYNAMODB_ENDPOINT,
        tableName: c.TABLE_NAME,
        pollMs: c.LOCAL_STREAM_POLL_MS,
        clock: opts.clock,
      })
    : undefined;
  await stream?.ready;
  // Loaded only when served: `npm run admin` starts the runtime without HTTP, and need not load the HTTP functions.
  const server = opts.withoutHttp
    ? undefined
    : (await import('./server.ts')).createLocalServer({ clock: opts.clock, accessLog: opts.accessLog });
  if (server) await new Promise<void>((r) => server.listen(c.PORT, '127.0.0.1', r));
  const port = server ? (server.address() as AddressInfo).port : 0;
  if (server) {
    // Unless configured, every address the service hands out is where this server really listens (PORT=4100,
    // tests on any free port): links in mails, invoice and download links, the local payment pages, WebSockets.
    const unset = (name: string) => !env[name] && !process.env[name];
    if (unset('APP_BASE_URL')) env.APP_BASE_URL = `http://localhost:${port}`;
    if (unset('API_BASE_URL')) env.API_BASE_URL = `http://localhost:${port}`;
    if (unset('WS_BASE_URL')) env.WS_BASE_URL = `ws://localhost:${port}/ws/progress`;
    c = reloadConfig(env);
  }

  return {
    config: c,
    url: `http://localhost:${port}`,
    dynamoEndpoint: env.DYNAMODB_ENDPOINT,
    port,
    queues,
    async stop() {
      clearInterval(sweeper);
      clearInterval(outboxPoller);
      clearInterval(retrySweeper);
      await stream?.stop();
      if (server) {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
      await queues.drain();
      topologyStream.stop();
      queues.stop();
      configureFaults('');
      resetClients();
      await s3?.stop();
      await dynamo?.stop();
    },
  };
}
export type LocalStack = Awaited<ReturnType<typeof startLocalStack>>;
