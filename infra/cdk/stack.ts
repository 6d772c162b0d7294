import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import type { HttpApi, HttpStage, WebSocketApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { addHttpFunctions, createHttpApi } from './api.ts';
import { ROOT } from './bundling.ts';
import { createSecrets, createStores } from './data.ts';
import { functionEnvironment, Lambdas } from './lambdas.ts';
import { addMonitoring } from './monitoring.ts';
import type { CatalogStackProps } from './props.ts';
import { addSchedules } from './schedules.ts';
import { addSeeding } from './seeding.ts';
import { WebHosting } from './web-hosting.ts';
import { addProgressRoutes, createProgressApi } from './websocket.ts';
import { addOutbox, addWorkers, createQueues } from './workers.ts';
import { addTopologyKeeper } from './topology-keeper.ts';

export { afterBundlingCommands, argon2Arm64Tarball, LAMBDA_ARCHITECTURE, separatePackagesOf } from './bundling.ts';
export type { CatalogStackProps } from './props.ts';

/**
 * The whole service, composed of its parts (one file each): data, queues and workers, the HTTP API, the
 * progress WebSocket, the site, the sweeps and seeding, monitoring. Every part creates its resources in
 * this stack's own scope, so their logical ids are those of the stack before it was split into files.
 */
export class CatalogStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly httpFunctions: Record<string, NodejsFunction>;
  readonly workers: Record<string, NodejsFunction>;
  /** Live job progress: `$connect` with a single-use ticket (authorizer), messages posted by the jobs worker. */
  readonly progressApi: WebSocketApi;
  /** Sweeps webhook delivery attempts that have fallen due, every minute. */
  readonly webhookRetriesFunction: NodejsFunction;
  /** Reads the table's stream: inserted outbox items go to the events queue. */
  readonly outboxFunction: NodejsFunction;
  /** Reads the table's stream: the drawn items' changes go into their environments' topology snapshots. */
  readonly topologyKeeperFunction: NodejsFunction;
  /** Sweeps what has fallen due (downgrade reminders and enforcement) every 15 minutes. */
  readonly deadlinesFunction: NodejsFunction;
  /** Seeds plans (and the optional first staff account) on deploy. */
  readonly seedFunction: NodejsFunction;
  /** The dashboard from S3 and the API, on one CloudFront site. */
  readonly web: WebHosting;

  constructor(scope: Construct, id: string, props: CatalogStackProps = {}) {
    super(scope, id, props);
    const stores = createStores(this, props.siteDomainName);
    const queues = createQueues(this);
    const secrets = createSecrets(this);
    ({ api: this.api, stage: this.stage } = createHttpApi(this));
    // The progress WebSocket API first (its routes are added once the functions exist): every function learns its URLs.
    const progress = createProgressApi(this);
    this.progressApi = progress.progressApi;
    // The dashboard and the API on one site (the distribution's API behaviours need only the APIs' ids):
    // links, the allowed origin and the progress WebSocket's address are that site's.
    this.web = new WebHosting(this, 'Web', {
      webDist: props.webDist ?? join(ROOT, 'web', 'dist'),
      api: this.api,
      progressApi: this.progressApi,
      progressStage: progress.progressStage,
      accessLogs: stores.accessLogs,
      documents: stores.documents,
      domainName: props.siteDomainName,
      certificateArn: props.siteCertificateArn,
      originVerify: secrets.originVerify.secretValue.unsafeUnwrap(),
    });
    const resources = { ...stores, ...secrets, ...progress, queues: queues.queues, web: this.web };
    const lambdas = new Lambdas(this, resources, functionEnvironment(props, resources), props.stripeSecretArn);
    this.httpFunctions = addHttpFunctions(this.api, lambdas);
    this.workers = addWorkers(this, lambdas, queues.queues);
    this.outboxFunction = addOutbox(lambdas, stores.table, queues);
    this.topologyKeeperFunction = addTopologyKeeper(lambdas, stores.table);
    addProgressRoutes(lambdas, progress);
    const sweeps = addSchedules(this, lambdas, secrets.totpKey);
    this.deadlinesFunction = sweeps.deadlines;
    this.webhookRetriesFunction = sweeps.webhookRetries;
    this.seedFunction = addSeeding(this, lambdas, stores.table, props.bootstrapAdminSecretArn);
    addMonitoring(this, {
      ...queues,
      stage: this.stage,
      httpFunctions: this.httpFunctions,
      workers: this.workers,
      deadlines: this.deadlinesFunction,
      web: this.web,
    });
  }
}
