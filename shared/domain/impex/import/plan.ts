import type { AppContext } from '#shared/context';
import { quotaLimit, SERVICES_QUOTA, type Plan } from '#domain/billing';
import type { CounterLimit } from '#db/counter-moves';
import { passesMax } from '#db/steps';
import { planOfProject, serviceQuotaAddon } from '#domain/tenancy';
import type { EnvironmentDocument } from '../document.ts';
import { importError, type ImportError } from '../parse.ts';
import { documentProblems } from '../problems.ts';
import { readEnvironment, type EnvironmentContents } from '../read.ts';
import { summarize, type ImportItem, type ImportReport } from './report.ts';
import { walk } from './walk.ts';
import { environmentFingerprint } from './fingerprint.ts';

export interface ImportPlan {
  report: ImportReport;
  projectId: string;
  environmentId: string;
  /** The project owner's plan, as read when planning (its retention is the audit's). */
  plan: Plan | null;
  /** The environment's connections_version the plan read its connections at. */
  connectionsVersion: number;
  /** What the plan was made against (fingerprint.ts); null without a plan. */
  fingerprint: string | null;
  /** How many units (entities to write) the plan has. */
  total: number;
  /**
   * What apply plans again from, a slice at a time (never every unit at once: the memory of a
   * 50,000-service import), with the service limit as read when planning (the one apply enforces,
   * the plan's and the add-on's); null without a plan.
   */
  source: { document: EnvironmentDocument; env: EnvironmentContents; serviceLimit: CounterLimit } | null;
}

export async function planImport(
  input: { projectId: string; environmentId: string; document: EnvironmentDocument },
  ctx: AppContext,
): Promise<ImportPlan> {
  const { projectId, environmentId: envId, document: doc } = input;
  const empty = (errors: ImportError[]): ImportPlan => ({
    report: { summary: summarize([], errors), items: [], errors },
    projectId,
    environmentId: envId,
    plan: null,
    connectionsVersion: 0,
    fingerprint: null,
    total: 0,
    source: null,
  });
  // The document's own rules (parseDocument checked them with line numbers; checked again for a document built in code).
  const problems = documentProblems(doc);
  if (problems.length) return empty(problems.map(importError));

  const env = await readEnvironment(projectId, envId);
  const plan = await planOfProject(env.project);
  const addon = serviceQuotaAddon(env.project);
  const items: ImportItem[] = [];
  const errors: ImportError[] = [];
  // The units are counted, not kept: apply plans them again, a slice at a time (Sink).
  let total = 0;
  let creating = 0;
  const serviceLimit = quotaLimit(plan, SERVICES_QUOTA, addon);
  await walk({ projectId, envId, doc, env, serviceLimit }, ctx, {
    record: (kind, name, action, detail) => items.push({ kind, name, action, ...(detail ? { detail } : {}) }) - 1,
    error: (e) => void errors.push(e),
    units: async (us) => {
      total += us.length;
      creating += us.filter((u) => u.create?.kind === 'service').length;
    },
    close: async () => {},
  });

  // The service limit, for the whole import, per project and per environment (SPEC "Limits" 3).
  const projectCount = Number(env.project.service_count ?? 0);
  const envCount = Number(env.environment.service_count ?? 0);
  if (passesMax(projectCount, creating, serviceLimit.max) || passesMax(envCount, creating, serviceLimit.max)) {
    errors.push({ path: '/spec/services', line: null, message: String(serviceLimit.refusal.detail) });
  }
  const fingerprint = environmentFingerprint(env);
  return {
    report: { summary: summarize(items, errors), items, errors, fingerprint },
    projectId,
    environmentId: envId,
    plan,
    connectionsVersion: env.connectionsVersion,
    fingerprint,
    total,
    source: { document: doc, env, serviceLimit },
  };
}
