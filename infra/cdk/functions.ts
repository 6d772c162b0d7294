import { FALLBACK_GROUP, routeTable, type RouteGroup } from '../../functions/route-table.ts';
import { workerTable } from '../../functions/workers/index.ts';
import type { Route } from '#http/route';
import type { QueueName } from '#shared/queue';

/**
 * Every Lambda function of the stack, without CDK: the stack builds its functions from these lists, and
 * what runs them outside the cloud reads the same ones: `npm run invoke -- <name> events/<name>.json`,
 * the sample events in `events/` (one per function, `<name>.json`) and their test
 * (test/integration/sample-events.test.ts), which also holds this list to the synthesized template.
 */

/** What invokes a function in the cloud, hence the shape of its event (`events/<name>.json`). */
export type Trigger =
  | 'http' // API Gateway HTTP API, payload format 2.0
  | 'sqs' // an SQS event source mapping
  | 'dynamodb-stream' // the table's stream
  | 'websocket-authorizer' // the WebSocket API's $connect REQUEST authorizer
  | 'websocket' // the WebSocket API's $connect, $disconnect and $default routes
  | 'schedule' // an EventBridge rule's scheduled event
  | 'deploy'; // a CDK Trigger on deploy (an empty payload)

export interface StackFunction {
  /** The construct id in the stack (`AuthFunction`): `sam local invoke` takes it (or the logical id CDK derives from it). */
  id: string;
  /** Its service name (`auth`, `mail-worker`): POWERTOOLS_SERVICE_NAME, the `npm run invoke` name and the sample event's file name. */
  name: string;
  /** The handler module (its `handler` export is the Lambda handler). */
  entry: string;
  trigger: Trigger;
}

export const pascal = (s: string) => s.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());

/** `AuthFunction` → `auth`, `MailWorker` → `mail-worker`: the service name on a function's logs, metrics and traces. */
export const serviceName = (id: string) =>
  id
    .replace(/Function$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();

/** The route groups that get a function: those with routes, and the fallback group (API Gateway's `$default`). */
export const httpFunctionGroups = (): RouteGroup[] =>
  (Object.entries(routeTable) as [RouteGroup, Route[]][])
    .filter(([group, routes]) => routes.length > 0 || group === FALLBACK_GROUP)
    .map(([group]) => group);

export const httpFunction = (group: string) => ({
  id: `${pascal(group)}Function`,
  entry: `functions/${group}/handler.ts`,
});
/**
 * The jobs worker (exports, imports, discovery runs) takes one message at a time for up to Lambda's
 * 15 minutes, and its V8 heap is capped so that the whole process stays within its 512 MB: code,
 * buffers and the new space take the rest beside the old space (docs/scale.md). The scale bench
 * runs its jobs with the same cap.
 */
export const JOBS_HEAP_MB = 320;
/**
 * The young generation's semi-spaces, capped too: left to V8, they grow so far that parsing a
 * 24 MB import document alone took 459 MB RSS, against 315 MB with 16 MB semi-spaces, in the same
 * time (docs/scale.md).
 */
export const JOBS_SEMI_SPACE_MB = 16;
/** The jobs worker's V8 flags (its NODE_OPTIONS, and the scale bench's jobs); `heapMb` 0: no old-space cap. */
export const jobsV8Flags = (heapMb = JOBS_HEAP_MB) => [
  ...(heapMb ? [`--max-old-space-size=${heapMb}`] : []),
  `--max-semi-space-size=${JOBS_SEMI_SPACE_MB}`,
];
export const workerFunction = (folder: string) => ({
  id: `${pascal(folder)}Worker`,
  entry: `functions/workers/${folder}/handler.ts`,
});

/** The functions the stack builds one by one. */
export const SINGLE_FUNCTIONS = {
  outbox: { id: 'OutboxFunction', entry: 'functions/streams/outbox/handler.ts', trigger: 'dynamodb-stream' },
  topologyKeeper: {
    id: 'TopologyKeeperFunction',
    entry: 'functions/streams/topology/handler.ts',
    trigger: 'dynamodb-stream',
  },
  progressAuthorizer: {
    id: 'ProgressAuthorizerFunction',
    entry: 'functions/websocket/authorizer.ts',
    trigger: 'websocket-authorizer',
  },
  progressConnections: {
    id: 'ProgressConnectionsFunction',
    entry: 'functions/websocket/handler.ts',
    trigger: 'websocket',
  },
  deadlines: { id: 'DeadlinesFunction', entry: 'functions/scheduled/deadlines/handler.ts', trigger: 'schedule' },
  webhookRetries: {
    id: 'WebhookRetriesFunction',
    entry: 'functions/scheduled/webhook-retries/handler.ts',
    trigger: 'schedule',
  },
  seed: { id: 'SeedFunction', entry: 'functions/seed/handler.ts', trigger: 'deploy' },
} as const satisfies Record<string, { id: string; entry: string; trigger: Trigger }>;

/** Every function of the stack, in the order the stack builds them. */
export function stackFunctions(): StackFunction[] {
  const named = (f: { id: string; entry: string }, trigger: Trigger): StackFunction => ({
    ...f,
    name: serviceName(f.id),
    trigger,
  });
  return [
    ...httpFunctionGroups().map((group) => named(httpFunction(group), 'http')),
    ...(Object.values(workerTable) as { folder: string }[]).map((w) => named(workerFunction(w.folder), 'sqs')),
    ...Object.values(SINGLE_FUNCTIONS).map((f) => named(f, f.trigger)),
  ];
}

/** A function by its name (`auth`, `mail-worker`), its construct id (`AuthFunction`), or the older `workers/<queue>`. */
export function findStackFunction(name: string): StackFunction | undefined {
  const queue = name.startsWith('workers/') ? (name.slice('workers/'.length) as QueueName) : undefined;
  const folder = queue ? workerTable[queue]?.folder : undefined;
  const wanted = folder ? serviceName(workerFunction(folder).id) : name;
  return stackFunctions().find((f) => f.name === wanted || f.id === wanted);
}
