import * as z from 'zod';
import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { batchGet, keyId } from '#db/batch-get';
import { transact, type TransactStep } from '#db/transact';
import { deleteWhenStep, existingSetStep, putNewStep, putWhenStep } from '#db/steps';
import { claimUnlessHeldStep } from '#db/claims';
import { conflict, notFound, unprocessable } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { seal } from '#auth/secret-box';
import { ENV_ROLES } from '#auth/permissions';
import { auditStep } from '#shared/audit';
import { lazySchema } from '#shared/lazy-schema';
import { requireFeatures } from '#domain/billing';
import { accessToProject, environmentsOf, planOfProject, type ProjectAccess } from '#domain/tenancy';
import {
  ssoConnectionEntity,
  newTxtValue,
  secretContext,
  toConnectionOut,
  txtName,
  type SsoConnection,
  type SsoDomain,
} from './connection.ts';
import { AddressRefused, IDP_ADDRESS_REFUSED, badIssuer } from './outbound.ts';
import { clientFor } from './openid.ts';
import { txtRecords } from './dns.ts';

export const SSO_CONNECTION_NOT_FOUND = 'SSO connection not found';
export const SSO_DOMAIN_CLAIMED = 'This domain is already claimed by another project';
export const SSO_DOMAIN_NOT_FOUND = 'Domain not found in this SSO connection';
export const JIT_ENVIRONMENT_UNKNOWN = 'Not an environment of this project';
export const CLIENT_SECRET_REQUIRED = 'A client secret is required for a new connection';
const CHANGED = conflict('The SSO connection changed meanwhile. Please retry.');

const hostname = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
export const ssoConnectionBody = lazySchema(() =>
  z.object({
    issuer: z
      .string()
      .trim()
      .max(2000)
      .pipe(z.url({ protocol: /^https?$/, error: 'The issuer must be an http(s) URL' })),
    client_id: z.string().trim().min(1).max(500),
    client_secret: z.string().min(1).max(2000).optional(),
    domains: z.array(z.string().trim().toLowerCase().regex(hostname, 'Not a domain name')).max(20).default([]),
    required: z.boolean().default(false),
    jit_role: z
      .object({ environment_id: z.uuid(), role: z.enum(ENV_ROLES) })
      .nullable()
      .default(null),
  }),
);
export type SsoConnectionInput = z.infer<ReturnType<typeof ssoConnectionBody>>;

/** Only the owner manages the connection; the project owner's plan must include `sso`. */
async function ownerAccess(ctx: AppContext, projectId: string): Promise<ProjectAccess> {
  const access = await accessToProject(projectId, actorAccount(ctx).id);
  access.requireOwnerRight('sso.manage');
  requireFeatures(await planOfProject(access.project), ['sso'], 'single sign-on');
  return access;
}

export async function loadConnection(projectId: string): Promise<SsoConnection | undefined> {
  const item = await getItem(keys.ssoConnection(projectId));
  return ssoConnectionEntity.decodeFound(item);
}

/**
 * The issuer's discovery document is fetched (through the address rule) and checked: its `issuer`
 * is the configured one (openid-client's discovery refuses otherwise) and it names authorization,
 * token and JWKS endpoints. Anything wrong is a 422 on `issuer` saying what.
 */
async function checkIssuer(ctx: AppContext, issuer: string, clientId: string, secret: string): Promise<void> {
  let meta: ReturnType<Awaited<ReturnType<typeof clientFor>>['serverMetadata']>;
  try {
    meta = (await clientFor(issuer, clientId, secret, ctx.config)).serverMetadata();
  } catch (err) {
    // openid-client wraps what the fetch threw: the first cause that says more is the one shown
    const chain: Error[] = [];
    for (let e: unknown = err; e instanceof Error && chain.length < 5; e = e.cause) chain.push(e);
    if (chain.some((e) => e instanceof AddressRefused)) throw badIssuer(IDP_ADDRESS_REFUSED);
    const told = chain.find((e) => e.message && e.message !== 'something went wrong') ?? chain[0];
    throw badIssuer(`The issuer's discovery document could not be used: ${told?.message ?? 'no answer'}`.slice(0, 500));
  }
  const missing = (['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const).filter((f) => !meta[f]);
  if (missing.length) throw badIssuer(`The issuer's discovery document lacks ${missing.join(', ')}`);
}

/** A claim of `domain` by `projectId`: free, unverified elsewhere (a claim is only a reservation once verified), or already ours. */
const claimStep = (domain: string, projectId: string, verified = false): TransactStep =>
  claimUnlessHeldStep(
    { ...keys.ssoDomain(domain), type: 'sso_domain', domain, project_id: projectId, verified },
    'project_id',
    ['verified', false],
    conflict(SSO_DOMAIN_CLAIMED),
  );
const releaseStep = (domain: string, projectId: string): TransactStep =>
  deleteWhenStep(keys.ssoDomain(domain), { project_id: projectId }, CHANGED);
/** Mirrors `required` on the project item, so every access check of the project sees it without another read. */
const projectRequiredStep = (projectId: string, required: boolean): TransactStep =>
  existingSetStep(keys.project(projectId), { sso_required: required });
/** The connection's write holds only if no one else wrote it since our read. */
const connectionPut = (c: SsoConnection, previous: SsoConnection | undefined): TransactStep => {
  const item = { ...keys.ssoConnection(c.project_id), type: 'sso_connection', ...c };
  return previous ? putWhenStep(item, { updated_at: previous.updated_at }, CHANGED) : putNewStep(item, CHANGED);
};

/** What the audit log shows of a connection (never the secret). */
const audited = (c: SsoConnection | undefined) =>
  c
    ? {
        issuer: c.issuer,
        client_id: c.client_id,
        domains: c.domains.map((d) => d.domain),
        required: c.required,
        jit_role: c.jit_role,
      }
    : null;

/**
 * PUT /projects/{id}/sso: creates or replaces the connection. Kept domains keep their verification
 * and challenge; new ones are claimed (409 when verified by another project), dropped ones released,
 * all in the connection's transaction with the project's `sso_required` and the audit entry.
 */
export async function putConnection(ctx: AppContext, input: SsoConnectionInput & { project_id: string }) {
  const access = await ownerAccess(ctx, input.project_id);
  const projectId = access.project.id;
  const previous = await loadConnection(projectId);
  if (!previous && !input.client_secret)
    throw unprocessable([{ loc: ['body', 'client_secret'], msg: CLIENT_SECRET_REQUIRED, type: 'missing' }]);
  if (input.jit_role && !(await environmentsOf(projectId)).some((e) => e.id === input.jit_role!.environment_id)) {
    throw unprocessable([
      { loc: ['body', 'jit_role', 'environment_id'], msg: JIT_ENVIRONMENT_UNKNOWN, type: 'value_error' },
    ]);
  }
  const sealed = input.client_secret
    ? await seal(input.client_secret, secretContext(projectId))
    : previous!.client_secret_sealed;
  if (input.client_secret) await checkIssuer(ctx, input.issuer, input.client_id, input.client_secret);
  else await checkIssuer(ctx, input.issuer, input.client_id, 'unused-for-discovery');
  const wanted = [...new Set(input.domains)];
  const before = new Map((previous?.domains ?? []).map((d) => [d.domain, d]));
  const domains: SsoDomain[] = wanted.map(
    (domain) => before.get(domain) ?? { domain, verified: false, txt_value: newTxtValue(), verified_at: null },
  );
  const added = wanted.filter((d) => !before.has(d));
  const dropped = [...before.keys()].filter((d) => !wanted.includes(d));
  // a dropped domain whose (unverified) claim another project took meanwhile is no longer ours to release
  const claims = dropped.length ? await batchGet(dropped.map((d) => keys.ssoDomain(d))) : new Map();
  const ours = dropped.filter((d) => claims.get(keyId(keys.ssoDomain(d)))?.project_id === projectId);
  const now = ctx.clock.now().toISOString();
  const connection: SsoConnection = {
    project_id: projectId,
    issuer: input.issuer,
    client_id: input.client_id,
    client_secret_sealed: sealed,
    domains,
    required: input.required,
    jit_role: input.jit_role,
    created_at: previous?.created_at ?? now,
    updated_at: now,
  };
  await transact([
    connectionPut(connection, previous),
    ...added.map((d) => claimStep(d, projectId)),
    ...ours.map((d) => releaseStep(d, projectId)),
    projectRequiredStep(projectId, connection.required),
    ...auditStep(
      ctx,
      {
        action: previous ? 'sso_connection.update' : 'sso_connection.create',
        entity_type: 'sso_connection',
        entity_id: projectId,
        project_id: projectId,
        before: audited(previous),
        after: audited(connection),
      },
      { mode: 'creation' },
    ),
  ]);
  return toConnectionOut(connection);
}

export async function getConnection(ctx: AppContext, input: { project_id: string }) {
  const access = await ownerAccess(ctx, input.project_id);
  const c = await loadConnection(access.project.id);
  if (!c) throw notFound(SSO_CONNECTION_NOT_FOUND);
  return toConnectionOut(c);
}

/** DELETE: the connection, its domain claims (those still its own) and the project's `sso_required`, in one transaction. Linked identities stay (they belong to their accounts). */
export async function deleteConnection(ctx: AppContext, input: { project_id: string }): Promise<void> {
  const access = await ownerAccess(ctx, input.project_id);
  const projectId = access.project.id;
  const c = await loadConnection(projectId);
  if (!c) throw notFound(SSO_CONNECTION_NOT_FOUND);
  const claims = c.domains.length ? await batchGet(c.domains.map((d) => keys.ssoDomain(d.domain))) : new Map();
  const ours = c.domains.filter((d) => claims.get(keyId(keys.ssoDomain(d.domain)))?.project_id === projectId);
  await transact([
    deleteWhenStep(keys.ssoConnection(projectId), { updated_at: c.updated_at }, CHANGED),
    ...ours.map((d) => releaseStep(d.domain, projectId)),
    projectRequiredStep(projectId, false),
    ...auditStep(
      ctx,
      {
        action: 'sso_connection.delete',
        entity_type: 'sso_connection',
        entity_id: projectId,
        project_id: projectId,
        before: audited(c),
        after: null,
      },
      { mode: 'creation' },
    ),
  ]);
}

export const txtRecordMissing = (domain: string, value: string) =>
  `TXT record ${txtName(domain)} with the value "${value}" not found`;

/**
 * POST /projects/{id}/sso/domains/{domain}/verify: looks the TXT challenge up; found, the domain is
 * verified on the connection and its claim in one transaction (409 when another project verified
 * it first); not found, 422 naming the record expected.
 */
export async function verifyDomain(ctx: AppContext, input: { project_id: string; domain: string }) {
  const access = await ownerAccess(ctx, input.project_id);
  const projectId = access.project.id;
  const c = await loadConnection(projectId);
  if (!c) throw notFound(SSO_CONNECTION_NOT_FOUND);
  const domain = input.domain.toLowerCase();
  const entry = c.domains.find((d) => d.domain === domain);
  if (!entry) throw notFound(SSO_DOMAIN_NOT_FOUND);
  if (!entry.verified) {
    const records = await txtRecords(txtName(domain), ctx.config);
    if (!records.includes(entry.txt_value))
      throw unprocessable([
        { loc: ['path', 'domain'], msg: txtRecordMissing(domain, entry.txt_value), type: 'value_error' },
      ]);
    const now = ctx.clock.now().toISOString();
    const updated: SsoConnection = {
      ...c,
      domains: c.domains.map((d) => (d.domain === domain ? { ...d, verified: true, verified_at: now } : d)),
      updated_at: now,
    };
    await transact([
      connectionPut(updated, c),
      claimStep(domain, projectId, true),
      ...auditStep(
        ctx,
        {
          action: 'sso_connection.verify_domain',
          entity_type: 'sso_connection',
          entity_id: projectId,
          project_id: projectId,
          before: { domain, verified: false },
          after: { domain, verified: true },
        },
        { mode: 'creation' },
      ),
    ]);
    return toConnectionOut(updated).domains.find((d) => d.domain === domain)!;
  }
  return toConnectionOut(c).domains.find((d) => d.domain === domain)!;
}
