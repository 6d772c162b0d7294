import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { faultInjector } from '../../shared/faults.ts';
import { startDynamo, type LocalDynamo } from '../local/dynamo.ts';
import { startS3, type LocalS3 } from '../local/s3.ts';
import { startAwsEndpoint } from './aws-endpoint.ts';
import type { ServiceHandler } from './stand-ins/aws-request.ts';
import { cloudFront } from './cloudfront.ts';
import type { DeployedOptions } from './deployed-options.ts';
import { createTables } from './dynamodb-tables.ts';
import { pollQueue, sqsMappings, startSchedules } from './event-sources.ts';
import { httpApi } from './http-api.ts';
import { webSocketApi } from './websocket-api.ts';
import { ACCOUNT, createResolver, REGION } from './intrinsics.ts';
import { lambdaFunctions } from './lambda-functions.ts';
import { createSandboxes, type Sandboxes } from './sandboxes.ts';
import { createStandIns, templateSecrets } from './stand-ins/index.ts';
import { startFakeStripe, STRIPE_PAGES, type FakeStripe } from './stand-ins/stripe.ts';
import { LOCAL_STRIPE_SECRET_ARN } from './synth.ts';
import { pollStream, streamMappings } from './table-stream.ts';
import { readAssembly, referencedId, resourcesOf } from './template.ts';
import { outlastClientIdle } from '../local/keep-alive.ts';
import { closeUpgradesWithServer } from '../local/upgraded-sockets.ts';

/**
 * The product served from a synthesized template and its asset folders alone: DynamoDB Local
 * and s3rver (as `npm start` starts them) behind IAM-checking proxies, wire-protocol stand-ins for SQS,
 * KMS, Secrets Manager and SES, every function in its own warm sandboxes with the template's environment
 * and role, the HTTP API's routes, the distribution's behaviours on one origin, the event source
 * mappings, the table stream, the schedules, and the seeding Trigger run once at start.
 */
export async function startDeployed(opts: DeployedOptions) {
  const log = opts.log ?? ((line: string) => console.log(line));
  const env = opts.env ?? process.env;
  const faults = env.FAULTS ? faultInjector(env.FAULTS, Number(env.FAULTS_SEED ?? 1)) : undefined;
  const scale = (name: 'DEPLOYED_VISIBILITY_SCALE' | 'DEPLOYED_STREAM_BACKOFF_SCALE') => {
    const value = Number(env[name] ?? 1);
    if (!(value > 0 && value <= 1)) throw new Error(`${name}: ${env[name]} is not a number in (0, 1]`);
    return value;
  };
  const visibilityScale = scale('DEPLOYED_VISIBILITY_SCALE');
  const streamBackoffScale = scale('DEPLOYED_STREAM_BACKOFF_SCALE');
  const stops: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  // DynamoDB Local (a JVM) starts while the stack is still being synthesized.
  let dynamoHeld = false;
  const dynamoStarting = opts.dynamoEndpoint
    ? undefined
    : startDynamo(opts.inMemory ? {} : { dataDir: join(opts.dataDir, 'deployed', 'dynamodb'), port: opts.dynamoPort });
  try {
    const assembly = readAssembly(await opts.cdkOut, opts.templateFile);
    const dynamo: LocalDynamo | undefined = await dynamoStarting;
    dynamoHeld = true;
    if (dynamo) stops.push(() => dynamo.stop());
    const dynamoEndpoint = opts.dynamoEndpoint ?? dynamo!.endpoint;

    // The site listens first: every address the functions are given is where it really is.
    // Until everything is up, a request is answered 503 (a browser opened early would otherwise wait forever).
    const starting = (_req: IncomingMessage, res: ServerResponse) =>
      res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' }).end('start:deployed is starting\n');
    const site: Server = outlastClientIdle(createServer(starting));
    closeUpgradesWithServer(site); // a WebSocket still being authorized at a stop would keep it waiting
    await new Promise<void>((r) => site.listen(opts.port, '127.0.0.1', r));
    stops.push(
      () =>
        new Promise<void>((r) => {
          site.closeAllConnections();
          site.close(() => r());
        }),
    );
    const siteUrl = opts.siteUrl ?? `http://localhost:${(site.address() as AddressInfo).port}`;
    const services: Record<string, ServiceHandler> = {};
    const aws = await startAwsEndpoint(services, log);
    stops.push(
      () =>
        new Promise<void>((r) => {
          aws.server.closeAllConnections();
          aws.server.close(() => r());
        }),
    );

    // Stripe, when the template's payment provider is the local Stripe secret (start:deployed synthesizes it so):
    // its API for the functions (STRIPE_API_BASE), its hosted pages on the site's own origin, and its events
    // signed and sent to the payment webhook route through the distribution, as Stripe sends them.
    let stripe: FakeStripe | undefined;
    const stripeSecret: Record<string, string> = {};
    if (
      resourcesOf(assembly, 'AWS::Lambda::Function').some(
        ([, r]) => r.Properties?.Environment?.Variables?.STRIPE_SECRET_ARN === LOCAL_STRIPE_SECRET_ARN,
      )
    ) {
      const keys = {
        secret_key: `sk_test_local_${randomBytes(12).toString('hex')}`,
        webhook_secret: `whsec_${randomBytes(24).toString('base64url')}`,
      };
      const local = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      stripe = await startFakeStripe({
        secretKey: keys.secret_key,
        pages: `${siteUrl}${STRIPE_PAGES}`,
        webhook: { url: `${local}/billing/stripe/webhook`, secret: keys.webhook_secret },
        log,
      });
      const running = stripe;
      stops.push(() => running.close());
      stripeSecret[LOCAL_STRIPE_SECRET_ARN] = JSON.stringify(keys);
    }

    const attributes = await createTables(assembly, dynamoEndpoint, opts.tablePrefix);
    // Secrets are resolved lazily: the template's own are made once the resolver can name them.
    let secrets = new Map<string, string>();
    const resolver = createResolver(
      assembly,
      { site: siteUrl, aws: aws.url },
      { attributes, secretValue: (arn) => secrets.get(arn) ?? '', tablePrefix: opts.tablePrefix },
    );
    secrets = templateSecrets(assembly, resolver, { ...stripeSecret, ...opts.extraSecrets });

    const buckets = resourcesOf(assembly, 'AWS::S3::Bucket').map(([id]) => resolver.ref(id));
    const s3: LocalS3 = await startS3(join(opts.dataDir, 'deployed', 's3'), buckets, undefined, {
      allowMismatchedSignatures: true,
    });
    stops.push(() => s3.stop());

    const functions = lambdaFunctions(
      assembly,
      resolver,
      { site: siteUrl, aws: aws.url },
      stripe ? { STRIPE_API_BASE: stripe.url, ...env } : env,
    );
    const {
      iam,
      sqs,
      customerAws,
      services: handlers,
    } = createStandIns(assembly, resolver, functions, secrets, {
      dynamoEndpoint,
      s3Endpoint: s3.endpoint,
      dataDir: opts.dataDir,
      enforceIam: opts.enforceIam,
      log,
      visibilityScale,
      faults,
    });
    Object.assign(services, handlers);

    const sandboxes = new Map<string, Sandboxes>(functions.map((f) => [f.logicalId, createSandboxes(f, log)]));
    stops.push(() => Promise.all([...sandboxes.values()].map((s) => s.stop())).then(() => undefined));
    const invoke = (functionId: string, event: unknown) => {
      const s = sandboxes.get(functionId);
      if (!s) throw new Error(`no function ${functionId}`);
      return s.invoke(event);
    };

    const apis = Object.fromEntries(
      resourcesOf(assembly, 'AWS::ApiGatewayV2::Api')
        .filter(([, r]) => r.Properties?.ProtocolType === 'HTTP')
        .map(([id]) => [id, httpApi(assembly, resolver, id, invoke).handle]),
    );
    const webSockets = resourcesOf(assembly, 'AWS::ApiGatewayV2::Api')
      .filter(([, r]) => r.Properties?.ProtocolType === 'WEBSOCKET')
      .map(([id]) => [id, webSocketApi(assembly, resolver, id, invoke, iam, log)] as const);
    stops.push(() => {
      for (const [, w] of webSockets) w.stop();
    });
    // The management API of each WebSocket API, at its callback URL (resolved to the AWS endpoint).
    services['execute-api'] = (req) =>
      (
        webSockets.find(([, w]) => req.url.startsWith(`/execute-api/${w.apiId}/`))?.[1].manage ??
        (async () => ({ status: 404 }))
      )(req);
    const [distribution] = resourcesOf(assembly, 'AWS::CloudFront::Distribution');
    if (!distribution) throw new Error('the template has no CloudFront distribution to serve the site from');
    const site_ = cloudFront(
      assembly,
      resolver,
      distribution[0],
      apis,
      Object.fromEntries(webSockets.map(([id, w]) => [id, w.upgrade])),
    );
    site.on(
      'upgrade',
      (req, socket, head) =>
        void site_.upgrade(req, socket, head).catch((err: unknown) => {
          log(`WebSocket upgrade failed: ${(err as Error).stack ?? err}`);
          socket.destroy();
        }),
    );

    const functionById = new Map(functions.map((f) => [f.logicalId, f]));
    const pollers = [
      ...sqsMappings(assembly, resolver).map((m) =>
        pollQueue(m, functionById.get(m.functionId)!, sqs, iam, invoke, log, faults),
      ),
      ...streamMappings(assembly, resolver).map((m) =>
        pollStream(m, functionById.get(m.functionId)!, dynamoEndpoint, sqs, iam, invoke, log, streamBackoffScale),
      ),
    ];
    stops.push(() => Promise.all(pollers.map((p) => p.stop())).then(() => undefined));
    const schedules = startSchedules(assembly, resolver, invoke, log);
    stops.push(() => schedules.stop());

    // CDK's Triggers (the seeding function) run once the stack exists: here, before the site answers.
    for (const [, t] of resourcesOf(assembly, 'Custom::Trigger')) {
      const version = referencedId(t.Properties!.HandlerArn)!;
      await invoke(referencedId(assembly.resources[version]?.Properties?.FunctionName) ?? version, {});
    }
    site.off('request', starting);
    const serve = async (req: IncomingMessage, res: ServerResponse) => {
      if (stripe && (await stripe.page(req, res))) return;
      await site_.handle(req, res);
    };
    site.on(
      'request',
      (req, res) =>
        void serve(req, res).catch((err: unknown) => {
          log(`site failed: ${(err as Error).stack ?? err}`);
          if (!res.headersSent) res.writeHead(502);
          res.end();
        }),
    );

    return {
      url: siteUrl,
      assembly,
      awsEndpoint: aws.url,
      dynamoEndpoint,
      functions,
      iam,
      sqs,
      /** Stripe's API and hosted pages, when the template's payment provider is the local Stripe secret (its keys: `secrets.get(LOCAL_STRIPE_SECRET_ARN)`). */
      stripe,
      /** The customer's AWS account discovery assumes a role in (register its roles and instances). */
      customerAws,
      secrets,
      resolver,
      account: ACCOUNT,
      region: REGION,
      /** Calls the stand-ins were sent, by `<service>:<operation>` (the cloud-only branches the functions took). */
      awsCalls: () => aws.calls(),
      /** Invocations per function (logical id). */
      /** The queue faults the SQS stand-in and the pollers injected, by kind (each function counts its own SDK faults). */
      faultCounts: () => faults?.counts() ?? {},
      invocations: () => Object.fromEntries([...sandboxes].map(([id, s]) => [id, s.invocations])),
      /** Per function (logical id), the routes and events that reached it. */
      reachedBy: () => Object.fromEntries([...sandboxes].map(([id, s]) => [id, s.reachedBy])),
      invoke,
      /** Fires every scheduled rule now (their targets invoked with EventBridge's scheduled event). */
      fireSchedules: () => schedules.fireAll(),
      /** Resolves when no queue holds a visible or received message and no poller is delivering (a quiet moment). */
      async settled(timeoutMs = 30_000): Promise<void> {
        const until = Date.now() + timeoutMs;
        let quietSince = 0;
        while (Date.now() < until) {
          const quiet =
            !pollers.some((p) => p.busy) &&
            sqs.arns().every((arn) => {
              const c = sqs.counts(arn);
              return c.inFlight === 0 && (c.visible === 0 || sqs.isDeadLetterQueue(arn));
            });
          if (!quiet) quietSince = 0;
          else if (!quietSince) quietSince = Date.now();
          else if (Date.now() - quietSince > 400) return;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('the deployed shape did not settle');
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    // An assembly that failed to come leaves DynamoDB Local running unless it is stopped here.
    if (!dynamoHeld)
      await dynamoStarting?.then(
        (d) => d.stop(),
        () => {},
      );
    throw err;
  }
}
export type Deployed = Awaited<ReturnType<typeof startDeployed>>;
