import { followJob } from '../../../clients/typescript/src/jobs.ts';
import { multipart, type InfracatClient } from '../../../clients/typescript/src/client.ts';
import { IMPEX_API_VERSION } from '#domain/impex';
import type { Entry, Kind, Ledger } from './ledger.ts';
import { outcome, type Outcome } from './outcome.ts';

/** What one client works on: its own environment (so its ledger is the whole truth there) and one to import into. */
export interface Scope {
  index: number;
  projectId: string;
  envId: string;
  importEnvId: string;
}

/** What the run noticed while it ran: answers no retry excuses, and writes left without an answer. */
export interface RunNotes {
  refusals: string[];
  unanswered: Map<string, number>;
  operations: number;
  /** What each client is doing now: what a run that does not end is stuck in. */
  doing: Map<number, string>;
}

const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];
const LANGUAGES = ['go', 'typescript', 'python'];
/** Each entity kind's route and the field its updates change. */
const ROUTES: Record<
  Exclude<Kind, 'connection'>,
  { path: '/services' | '/service-floors' | '/networks'; item: string; field: string }
> = {
  service: { path: '/services', item: '/services/{service_id}', field: 'version' },
  floor: { path: '/service-floors', item: '/service-floors/{floor_id}', field: 'cpu' },
  network: { path: '/networks', item: '/networks/{network_id}', field: 'description' },
};

/**
 * One client's mix until `deadline`: creates, updates and deletes of services, floors, networks and
 * connections, filtered lists and blast radii, one import and one export. Each write's answer goes
 * into the ledger.
 */
export async function runClient(
  client: InfracatClient,
  scope: Scope,
  ledger: Ledger,
  notes: RunNotes,
  deadline: number,
): Promise<void> {
  const { projectId, envId } = scope;
  const inEnv = { project_id: projectId, environment_id: envId };
  let n = 0;
  const name = (prefix: string) => `${prefix}-${scope.index}-${n++}`;
  const note = (label: string, o: Outcome<unknown>) => {
    notes.operations++;
    if (o.kind === 'refused') notes.refusals.push(`${label}: ${o.status} ${o.detail}`);
    if (o.kind === 'unknown') notes.unanswered.set(label, (notes.unanswered.get(label) ?? 0) + 1);
  };

  const create = async (
    kind: Exclude<Kind, 'connection'>,
    body: Record<string, unknown>,
    entryName: string,
    value: string,
  ) => {
    const o = await outcome(
      () =>
        client.api.POST(ROUTES[kind].path, { body: { ...inEnv, ...body } as never }) as Promise<{
          data?: { id: string };
        }>,
    );
    note(`POST ${ROUTES[kind].path}`, o);
    if (o.kind !== 'refused')
      ledger.add({
        kind,
        id: o.kind === 'ok' ? o.value.id : undefined,
        name: entryName,
        envId,
        created: o.kind === 'ok' ? 'acked' : 'uncertain',
        value,
      });
  };
  const update = async (kind: Exclude<Kind, 'connection'>, e: Entry, value: string) => {
    // Writing the value it has changes nothing: no audit entry, no event (not a change to count).
    if (value === e.value) return;
    const body = { [ROUTES[kind].field]: kind === 'floor' ? Number(value) : value };
    const o = await outcome(
      () =>
        client.api.PATCH(
          ROUTES[kind].item as never,
          { params: { path: pathParams(kind, e.id!) }, body } as never,
        ) as Promise<{ data?: unknown }>,
    );
    note(`PATCH ${ROUTES[kind].item}`, o);
    e.history.push(`update ${value} ${o.kind === 'refused' ? o.status : o.kind}`);
    if (o.kind === 'ok') {
      e.value = value;
      e.ackedChanges++;
    } else if (o.kind === 'unknown') {
      e.maybeValues.add(value);
      e.uncertainChanges++;
    }
  };
  const remove = async (kind: Kind, e: Entry) => {
    const path = kind === 'connection' ? '/service-connections/{connection_id}' : ROUTES[kind].item;
    const o = await outcome(
      () =>
        client.api.DELETE(path as never, { params: { path: pathParams(kind, e.id!) } } as never) as Promise<{
          data?: unknown;
        }>,
    );
    // A delete retried after it took effect finds nothing: gone either way.
    const gone = o.kind === 'ok' || (o.kind === 'refused' && o.status === 404);
    e.history.push(`delete ${o.kind === 'refused' ? o.status : o.kind}`);
    if (!gone) note(`DELETE ${path}`, o);
    else notes.operations++;
    if (gone) {
      e.deleted = 'acked';
      e.ackedChanges++;
    } else if (o.kind === 'unknown') {
      e.deleted = 'uncertain';
      e.uncertainChanges++;
    }
    // A service's delete removes its connections with it.
    if (kind === 'service' && e.deleted !== 'no') {
      for (const c of ledger.entries)
        if (c.kind === 'connection' && c.deleted === 'no' && c.ends?.includes(e.id!)) c.deleted = e.deleted;
    }
  };

  notes.doing.set(scope.index, 'the import');
  await importOnce(client, scope, ledger, note);
  const mix: [number, () => Promise<void>][] = [
    [
      20,
      () =>
        create(
          'service',
          {
            name: `s-${scope.index}-${n}`,
            tags: [`team-${n % 3}`],
            programming_language: LANGUAGES[n % 3],
            version: 'v0',
          },
          name('s'),
          'v0',
        ),
    ],
    [
      12,
      async () => {
        const e = pick(ledger.live('service', envId));
        if (e) await update('service', e, `v${n++}`);
      },
    ],
    [
      6,
      async () => {
        const e = pick(ledger.live('service', envId));
        if (e) await remove('service', e);
      },
    ],
    [6, () => create('floor', { hostname: `f-${scope.index}-${n}`, type: 'vm', cpu: 1 }, name('f'), '1')],
    [
      4,
      async () => {
        const e = pick(ledger.live('floor', envId));
        if (e) await update('floor', e, String(2 + (n++ % 60)));
      },
    ],
    [
      2,
      async () => {
        const e = pick(ledger.live('floor', envId));
        if (e) await remove('floor', e);
      },
    ],
    [
      5,
      () =>
        create(
          'network',
          { name: `n-${scope.index}-${n}`, cidr: `10.${scope.index}.${n % 256}.0/24`, description: 'd0' },
          name('n'),
          'd0',
        ),
    ],
    [
      3,
      async () => {
        const e = pick(ledger.live('network', envId));
        if (e) await update('network', e, `d${n++}`);
      },
    ],
    [
      2,
      async () => {
        const e = pick(ledger.live('network', envId));
        if (e) await remove('network', e);
      },
    ],
    [8, () => connect(client, scope, ledger, note, name('c'))],
    [
      2,
      async () => {
        const e = pick(ledger.live('connection', envId));
        if (e) await remove('connection', e);
      },
    ],
    [
      8,
      async () =>
        note(
          'GET /services',
          await outcome(() =>
            client.api.GET('/services', {
              params: { query: { ...inEnv, tags: [`team-${n % 3}`], language: LANGUAGES[n % 3] } },
            }),
          ),
        ),
    ],
    [
      4,
      async () =>
        note(
          'GET /service-floors',
          await outcome(() =>
            client.api.GET('/service-floors', { params: { query: { ...inEnv, type: 'vm' } } } as never),
          ),
        ),
    ],
    [
      3,
      async () =>
        note(
          'GET /networks',
          await outcome(() => client.api.GET('/networks', { params: { query: { ...inEnv, q: '10.' } } } as never)),
        ),
    ],
    [
      3,
      async () =>
        note(
          'GET /service-connections',
          await outcome(() => client.api.GET('/service-connections', { params: { query: inEnv } } as never)),
        ),
    ],
    [
      4,
      async () => {
        const e = pick(ledger.live('service', envId));
        if (e)
          note(
            'GET /services/{id}/blast-radius',
            await outcome(() =>
              client.api.GET('/services/{service_id}/blast-radius', { params: { path: { service_id: e.id! } } }),
            ),
          );
      },
    ],
  ];
  const total = mix.reduce((a, [w]) => a + w, 0);
  let exported = false;
  const halfway = Date.now() + (deadline - Date.now()) / 2;
  while (Date.now() < deadline) {
    if (!exported && Date.now() > halfway) {
      exported = true;
      notes.doing.set(scope.index, 'the export');
      await exportOnce(client, scope, note);
    }
    let r = Math.random() * total;
    const i = mix.findIndex(([w]) => (r -= w) < 0);
    notes.doing.set(scope.index, `operation ${i} of the mix`);
    await mix[i][1]();
  }
  notes.doing.delete(scope.index);
}

function pathParams(kind: Kind, id: string): Record<string, string> {
  return {
    service: { service_id: id },
    floor: { floor_id: id },
    network: { network_id: id },
    connection: { connection_id: id },
  }[kind];
}

async function connect(
  client: InfracatClient,
  scope: Scope,
  ledger: Ledger,
  note: (l: string, o: Outcome<unknown>) => void,
  name: string,
) {
  const services = ledger.live('service', scope.envId);
  const a = pick(services);
  const b = pick(services);
  if (!a || !b || a === b || ledger.connected(a.id!, b.id!)) return;
  const body = {
    project_id: scope.projectId,
    environment_id: scope.envId,
    a_type: 'service',
    a_id: a.id!,
    b_type: 'service',
    b_id: b.id!,
    direction: 'a_to_b',
    name,
  };
  const o = await outcome(
    () => client.api.POST('/service-connections', { body } as never) as Promise<{ data?: { id: string } }>,
  );
  note('POST /service-connections', o);
  if (o.kind !== 'refused')
    ledger.add({
      kind: 'connection',
      id: o.kind === 'ok' ? o.value.id : undefined,
      name,
      envId: scope.envId,
      created: o.kind === 'ok' ? 'acked' : 'uncertain',
      value: 'a_to_b',
      ends: [a.id!, b.id!],
    });
}

/** Services each client's import brings into its import environment. */
export const IMPORTED = 5;

/** Uploads a document of IMPORTED services and follows the job: they go into the ledger when it succeeds. */
async function importOnce(
  client: InfracatClient,
  scope: Scope,
  ledger: Ledger,
  note: (l: string, o: Outcome<unknown>) => void,
) {
  const names = Array.from({ length: IMPORTED }, (_, i) => `i-${scope.index}-${i}`);
  const doc = {
    apiVersion: IMPEX_API_VERSION,
    kind: 'Environment',
    metadata: {
      project: { id: scope.projectId, name: 'soak' },
      environment: { id: scope.importEnvId, name: 'import' },
      exported_at: new Date().toISOString(),
      source_record: null,
    },
    spec: {
      groups: [],
      service_floors: [],
      networks: [],
      services: names.map((name) => ({ name, version: 'imported' })),
      service_links: [],
      network_attachments: [],
      connections: [],
      connection_groups: [],
    },
  };
  const body = {
    project_id: scope.projectId,
    environment_id: scope.importEnvId,
    file: { filename: 'soak.json', content_type: 'application/json', text: JSON.stringify(doc) },
  };
  const started = await outcome(
    () =>
      client.api.POST('/impex/import', { body, bodySerializer: multipart }) as Promise<{ data?: { job_id: string } }>,
  );
  note('POST /impex/import', started);
  if (started.kind !== 'ok') return;
  const record = await outcome(async () => ({
    data: await followJob(client, started.value.job_id, { pollMs: 200, timeoutMs: 120_000 }),
  }));
  note('import job', record);
  const ok = record.kind === 'ok' && record.value.status === 'succeeded';
  if (record.kind === 'ok' && !ok)
    note('import job', {
      kind: 'refused',
      status: 0,
      detail: `ended ${record.value.status}: ${(record.value as { error?: string }).error ?? ''}`,
    });
  for (const name of names)
    ledger.add({
      kind: 'service',
      name,
      envId: scope.importEnvId,
      created: ok ? 'acked' : 'uncertain',
      value: 'imported',
    });
}

/** An export under faults: it must finish (the one after the run is compared with the API). */
async function exportOnce(client: InfracatClient, scope: Scope, note: (l: string, o: Outcome<unknown>) => void) {
  const body = { project_id: scope.projectId, environment_id: scope.envId };
  const started = await outcome(
    () =>
      client.api.POST('/impex/export', { body, bodySerializer: multipart }) as Promise<{ data?: { job_id: string } }>,
  );
  note('POST /impex/export', started);
  if (started.kind !== 'ok') return;
  const record = await outcome(async () => ({
    data: await followJob(client, started.value.job_id, { pollMs: 200, timeoutMs: 120_000 }),
  }));
  note('export job', record);
  if (record.kind === 'ok' && record.value.status !== 'succeeded')
    note('export job', {
      kind: 'refused',
      status: 0,
      detail: `ended ${record.value.status}: ${(record.value as { error?: string }).error ?? ''}`,
    });
}
