import { describe, expect, it } from 'vitest';
import { PLAN_CATALOGUE, isDowngrade, type Plan } from '#domain/billing';
import type { Environment, Project } from '#domain/tenancy';
import { anyOver, overage, type AccountUsage } from '#domain/lifecycle';

const plan = (name: string, interval: Plan['interval'] = 'monthly') =>
  PLAN_CATALOGUE.find(
    (p) => p.name === name && (name === 'Free' || name === 'Enterprise+' || p.interval === interval),
  )!;

describe('isDowngrade (shared/domain/billing/plan-rules.ts, the one rule): which plan changes go through the downgrade window', () => {
  it.each<[string, Plan, Plan, boolean]>([
    ['Team to Starter lowers limits', plan('Team'), plan('Starter'), true],
    ['Business to Free is a downgrade', plan('Business'), plan('Free'), true],
    ['Enterprise+ (unlimited) to Enterprise lowers limits', plan('Enterprise+'), plan('Enterprise'), true],
    [
      'Team annual to Team monthly: the same limits, a lower price',
      plan('Team', 'annual'),
      plan('Team', 'monthly'),
      true,
    ],
    ['Starter to Team raises limits', plan('Starter'), plan('Team'), false],
    ['Free to Starter is an upgrade', plan('Free'), plan('Starter'), false],
    ['Enterprise to Enterprise+ (unlimited) is not', plan('Enterprise'), plan('Enterprise+'), false],
    [
      'Team monthly to Team annual: the same limits, a higher price',
      plan('Team', 'monthly'),
      plan('Team', 'annual'),
      false,
    ],
    ['a plan to itself is not', plan('Team'), plan('Team'), false],
    [
      'lowering one limit while raising others is',
      plan('Team'),
      { ...plan('Business'), max_api_keys_per_user: 1 },
      true,
    ],
  ])('%s', (_name, from, to, downgrade) => {
    expect(isDowngrade(from, to)).toBe(downgrade);
  });
});

const env = (id: string, services: number) => ({ id, name: id, service_count: services }) as Environment;
const project = (id: string, counts: Partial<Project> & { service_quota_addon?: number }) =>
  ({ id, name: id, ...counts }) as Project;
const usage = (projects: { project: Project; envs: Environment[] }[], apiKeys = 0): AccountUsage => ({
  projects,
  apiKeys,
});

describe('overage (lifecycle/usage): what an account has beyond a plan', () => {
  it('an account within Starter is over nothing', () => {
    const o = overage(
      usage(
        [
          {
            project: project('a', { service_count: 10, env_count: 2, project_user_count: 3 }),
            envs: [env('e1', 6), env('e2', 4)],
          },
        ],
        2,
      ),
      plan('Starter'),
    );
    expect(o.over).toEqual({ services: 0, project_users: 0, api_keys: 0 });
    expect(o.usage).toEqual({ services: 10, project_users: 3, api_keys: 2 });
    expect(o.limits).toEqual({ services: 25, project_users: 10, api_keys: 5 });
    expect(anyOver(o)).toBe(false);
  });

  it('measures each project, each environment and the account against Free', () => {
    const o = overage(
      usage(
        [
          {
            project: project('a', { service_count: 8, env_count: 2, project_user_count: 3 }),
            envs: [env('e1', 7), env('e2', 1)],
          },
          { project: project('b', { service_count: 2, env_count: 1, project_user_count: 1 }), envs: [env('e3', 2)] },
        ],
        4,
      ),
      plan('Free'),
    );
    expect(o.over).toEqual({ services: 3, project_users: 2, api_keys: 3 });
    expect(o.environments_over).toBe(1);
    expect(o.projects).toEqual({ count: 2, limit: 1, over: 1 });
    expect(o.per_project[0].per_environment.map((e) => [e.environment_id, e.services.over])).toEqual([
      ['e1', 2],
      ['e2', 0],
    ]);
    expect(o.per_project[1].services).toEqual({ count: 2, limit: 5, over: 0 });
    expect(anyOver(o)).toBe(true);
  });

  it("a project's service add-on raises its service limit, and only its own", () => {
    const o = overage(
      usage([
        { project: project('a', { service_count: 12, service_quota_addon: 10 }), envs: [] },
        { project: project('b', { service_count: 12 }), envs: [] },
      ]),
      plan('Free'),
    );
    expect(o.per_project.map((p) => p.services)).toEqual([
      { count: 12, limit: 15, over: 0 },
      { count: 12, limit: 5, over: 7 },
    ]);
  });

  it('an unlimited plan (Enterprise+) is over nothing, its limits null', () => {
    const o = overage(
      usage(
        [
          {
            project: project('a', { service_count: 100_000, env_count: 500, project_user_count: 10_000 }),
            envs: [env('e', 100_000)],
          },
        ],
        10_000,
      ),
      plan('Enterprise+'),
    );
    expect(o.limits).toEqual({ services: null, project_users: null, api_keys: null });
    expect(anyOver(o)).toBe(false);
  });

  it('counts the listed environments when a project has no env counter; missing counters are zero', () => {
    const o = overage(usage([{ project: project('a', {}), envs: [env('e1', 0), env('e2', 0)] }]), plan('Free'));
    expect(o.per_project[0].environments).toEqual({ count: 2, limit: 1, over: 1 });
    expect(o.usage).toEqual({ services: 0, project_users: 0, api_keys: 0 });
  });

  it('owning too many projects alone asks nothing to be archived (nothing archives a project)', () => {
    const o = overage(
      usage([
        { project: project('a', {}), envs: [] },
        { project: project('b', {}), envs: [] },
      ]),
      plan('Free'),
    );
    expect(o.projects.over).toBe(1);
    expect(anyOver(o)).toBe(false);
  });
});
