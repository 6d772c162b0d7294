import { mkdtemp, rm } from 'node:fs/promises';
import { randomInt, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../../infra/local/stack.ts';
import { createInfracatClient } from '../../clients/typescript/src/client.ts';
import { appContext } from '#shared/context';
import { configureFaults, faultCounts } from '#shared/faults';
import { resetClients } from '#shared/clients';
import { sweepWebhookRetries } from '#domain/webhooks';
import { resendStaleOutbox } from '#shared/outbox';
import { readOutbox } from '../helpers/outbox.ts';
import { setPlan } from '../helpers/plans.ts';
import { Ledger } from './soak/ledger.ts';
import { Latency } from './soak/latency.ts';
import { startReceiver } from './soak/webhook-receiver.ts';
import { runClient, type RunNotes, type Scope } from './soak/workload.ts';
import { checkInvariants } from './soak/invariants.ts';

/**
 * `npm run soak`: concurrent clients through the typed client against the local stack
 * with faults on, for SOAK_SECONDS; then, faults off, the invariants over what they were told (2xx).
 * FAULTS picks the mix (default below), FAULTS_SEED replays one (printed; random by default),
 * SOAK_CLIENTS the number of clients. Any violation is listed and the exit code is 1.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 8);
const FAULTS =
  process.env.FAULTS ??
  'ddb.throttle:0.02,ddb.error:0.005,ddb.timeout-after-write:0.005,ddb.conflict:0.01,sqs.duplicate:0.05,sqs.late:0.02,sqs.reorder:0.05,worker.kill:0.01';
const SEED = Number(process.env.FAULTS_SEED ?? randomInt(1, 2 ** 31));
const PASSWORD = 'Soak-password-1!';
/** What the mail phase could not even ask for (reported with its invariant). */
const violationsBefore: string[] = [];
const DAY = 86_400_000;

console.log(`soak: ${CLIENTS} clients for ${SECONDS} s, FAULTS=${FAULTS} FAULTS_SEED=${SEED}`);
const dataDir = await mkdtemp(join(tmpdir(), 'infra-catalog-soak-'));
// Set-up runs without faults (FAULTS is switched on below, once accounts and environments exist).
const stack = await startLocalStack({
  inMemory: true,
  env: {
    TABLE_NAME: `soak-${randomUUID()}`,
    LOCAL_DATA_DIR: dataDir,
    PORT: '0',
    FAULTS: '',
    LOG_LEVEL: 'silent',
    POWERTOOLS_METRICS_DISABLED: 'true',
    WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
    LOCAL_OUTBOX_POLL_MS: '200',
    LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: '0',
    LOCAL_DEADLINE_SWEEP_SECONDS: '0',
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000000',
  },
});
const receiver = await startReceiver();
const latency = new Latency();
// Retry-After is 1 s; the soak waits 50 ms so that a run's seconds go to requests.
const newClient = () =>
  createInfracatClient({
    baseUrl: stack.url,
    fetch: latency.fetch,
    sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))),
    retry: { attempts: 8 },
  });

const email = `soak-${randomUUID()}@example.com`;
const owner = newClient();
const { data: account } = (await owner.api.POST('/auth/register', {
  body: { email, password: PASSWORD },
} as never)) as { data?: { id: string } };
await setPlan(account!.id, 'Enterprise+');
await owner.login({ email, password: PASSWORD });
const { data: project } = await owner.api.POST('/projects', { body: { name: 'soak' } });
const projectId = project!.id;
const newEnv = async (name: string) =>
  (await owner.api.POST('/environments', { body: { name, project_id: projectId } })).data!.id;
const scopes: Scope[] = [];
for (let index = 0; index < CLIENTS; index++)
  scopes.push({ index, projectId, envId: await newEnv(`env-${index}`), importEnvId: await newEnv(`import-${index}`) });
const { data: webhook } = (await owner.api.POST('/projects/{project_id}/webhooks', {
  params: { path: { project_id: projectId } },
  body: {
    url: receiver.url,
    events: ['service.created', 'service.updated', 'service.deleted', 'floor.created'],
    description: 'soak',
  },
} as never)) as { data?: { id: string } };
const clients = await Promise.all(
  scopes.map(async () => {
    const c = newClient();
    await c.login({ email, password: PASSWORD });
    return c;
  }),
);

configureFaults(FAULTS, SEED);
resetClients();
const ledger = new Ledger();
const notes: RunNotes = { refusals: [], unanswered: new Map(), operations: 0, doing: new Map() };
const started = performance.now();
const deadline = Date.now() + SECONDS * 1000;
const ran = Promise.all(clients.map((c, i) => runClient(c, scopes[i], ledger, notes, deadline)));
// A client still busy two minutes after the deadline is stuck: that is a finding, not something to wait for.
const stuck = await Promise.race([
  ran.then(() => false),
  new Promise<boolean>((r) => setTimeout(() => r(true), 120_000 + SECONDS * 1000).unref()),
]);
if (stuck) {
  console.log(
    `faults injected: ${Object.entries(faultCounts())
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  );
  configureFaults('');
  resetClients();
  const { data: records } = await owner.api.GET('/impex/history', {
    params: { query: { project_id: projectId, limit: 200 } },
  });
  console.log(
    `jobs: ${(records ?? []).map((r) => `${r.kind ?? ''} ${r.status} ${JSON.stringify(r.progress ?? {})}`).join('; ')}`,
  );
  for (const [i, what] of notes.doing)
    console.log(`  violation: client ${i} still in ${what} two minutes after the deadline`);
  console.log(`violations: ${notes.doing.size}`);
  process.exit(1);
}
const elapsed = (performance.now() - started) / 1000;
console.log('run over: faults off, draining and checking');
const requests = latency.requests;
const faults = faultCounts();
configureFaults('');
resetClients();

// Mail asked for while SQS refuses every send: two invitations and a password reset, then the outage ends.
const mailed = await mailDuringOutage();

// What is still in flight lands: queued messages, events, outbox items whose messages were dead-lettered
// (the resend sweep), and webhook retries (the schedule's runs, days ahead, until nothing is due).
await stack.queues.drain();
for (let days = 1; days <= 4; days++) {
  const ctx = appContext({ clock: { now: () => new Date(Date.now() + days * DAY) } });
  for (let sweep = 0; sweep < 20; sweep++) {
    const [retried, resent] = [await sweepWebhookRetries(ctx), await resendStaleOutbox(ctx)];
    await stack.queues.drain();
    if (!retried.done && !retried.failed && !resent.resent) break;
  }
}
const checked = await checkInvariants({
  client: owner,
  ledger,
  scopes,
  deliveries: receiver.deliveries,
  webhookId: webhook!.id,
});
checked.push(['every mail asked for during an SQS outage arrived once', await mailArrived(mailed)]);
const unclean = [...latency.serverErrors]
  .filter(([k]) => k !== '503 with Retry-After')
  .map(([k, n]) => `answered ${k}: ${n} times`);
const violations = [
  ...notes.refusals.map((r) => `refused: ${r}`),
  ...unclean,
  ...checked.flatMap(([name, v]) => v.map((x) => `${name}: ${x}`)),
];

const ms = (p: number) => `${latency.percentile(p).toFixed(1)} ms`;
console.log(`seed: ${SEED}`);
console.log(
  `requests: ${requests} (${notes.operations} operations, ${ledger.entries.length} writes in the ledger) in ${elapsed.toFixed(1)} s`,
);
console.log(`throughput: ${(requests / elapsed).toFixed(1)} requests/s`);
console.log(`latency: p50 ${ms(50)}, p95 ${ms(95)}, p99 ${ms(99)}`);
console.log(
  `faults injected: ${
    Object.entries(faults)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ') || 'none'
  }`,
);
console.log(
  `5xx answers (each retried by the client): ${[...latency.serverErrors].map(([k, v]) => `${k}=${v}`).join(', ') || 'none'}`,
);
console.log(
  `unanswered after the client's retries: ${[...notes.unanswered].map(([k, v]) => `${k}=${v}`).join(', ') || 'none'}`,
);
const tally = (kind: string) => {
  const of = ledger.entries.filter((e) => e.kind === kind);
  return `${kind}s ${of.filter((e) => e.created === 'acked').length} acknowledged (${of.filter((e) => e.deleted === 'acked').length} deleted, ${of.filter((e) => e.created === 'uncertain' || e.uncertainChanges).length} with an unanswered write)`;
};
console.log(`ledger: ${['service', 'floor', 'network', 'connection'].map(tally).join('; ')}`);
console.log(
  `webhook deliveries: ${receiver.deliveries.length} (${new Set(receiver.deliveries.map((d) => d.webhookId)).size} distinct webhook-ids)`,
);
for (const [name, v] of checked)
  console.log(`${v.length ? 'FAIL' : 'ok  '} ${name}${v.length ? ` (${v.length})` : ''}`);
for (const v of violations.slice(0, 50)) console.log(`  violation: ${v}`);
if (violations.length > 50) console.log(`  … and ${violations.length - 50} more`);
console.log(`violations: ${violations.length}`);

/** Asks for mail while every SQS send fails: the outbox keeps it. Answers the addresses and how many mails each was asked for. */
async function mailDuringOutage(): Promise<Map<string, number>> {
  const asked = new Map<string, number>();
  configureFaults('sqs.unavailable:1', SEED);
  resetClients();
  for (const invitee of [`soak-invitee-${randomUUID()}@example.com`, `soak-invitee-${randomUUID()}@example.com`]) {
    const { response } = await owner.api.POST('/invites', {
      body: { project_id: projectId, invited_email: invitee },
    } as never);
    if (response.status === 201) asked.set(invitee, 1);
    else violationsBefore.push(`POST /invites during the SQS outage: ${response.status}`);
  }
  const { response } = await owner.api.POST('/auth/password/reset', { body: { email } } as never);
  if (response.status === 200) asked.set(email, 1);
  else violationsBefore.push(`POST /auth/password/reset during the SQS outage: ${response.status}`);
  await stack.queues.drain();
  const refused = faultCounts()['sqs.unavailable'] ?? 0;
  configureFaults('');
  resetClients();
  if (!refused) violationsBefore.push('the SQS outage refused no send');
  console.log(
    `mail during an SQS outage: ${[...asked.values()].reduce((a, b) => a + b, 0)} asked for, ${refused} sends refused`,
  );
  return asked;
}

/** Each address got exactly the mails it was asked for. */
async function mailArrived(asked: Map<string, number>): Promise<string[]> {
  const out = [...violationsBefore];
  for (const [to, n] of asked) {
    const got = (await readOutbox(dataDir, { to })).length;
    if (got !== n) out.push(`${to}: ${got} mails, ${n} asked for`);
  }
  return out;
}

await receiver.stop();
await stack.stop();
await rm(dataDir, { recursive: true, force: true });
process.exit(violations.length ? 1 : 0);
