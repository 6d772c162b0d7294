import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { PLAN_CATALOGUE, getPlan, resetPlanCache } from '#domain/billing';

const ref = useTestStack();
const api = client(() => ref.stack.url);

/** SPEC "Plan": the order a client reads a plan's fields in (DynamoDB keeps none). */
const PLAN_KEYS = [
  'id',
  'name',
  'interval',
  'price_cents',
  'currency',
  'perks_text',
  'max_projects',
  'max_envs_per_project',
  'max_services',
  'max_project_users',
  'max_api_keys_per_user',
  'support_level',
  'features',
  'is_public',
];
const FEATURE_KEYS = [
  'crud_basic',
  'crud_pro',
  'crud_api',
  'multi_cloud',
  'scheduler_ansible',
  'ai_analysis',
  'webhooks',
  'sso',
  'users_included',
  'extra_user_price_cents',
  'api_rate_limit',
  'data_retention_days',
  'rbac_custom_roles_limit',
  'cost_estimate',
  'providers',
  'auto_discovery',
  'monitoring',
];

describe('GET /plans', () => {
  it('answers the public catalogue, each plan in the documented key order', async () => {
    const res = await api.get('/plans');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(PLAN_CATALOGUE.filter((p) => p.is_public));
    for (const plan of JSON.parse(res.text) as Record<string, Record<string, Record<string, unknown>>>[]) {
      expect(Object.keys(plan)).toEqual(PLAN_KEYS);
      expect(Object.keys(plan.features)).toEqual(FEATURE_KEYS);
      expect(Object.keys(plan.features.monitoring)).toEqual(['enabled', 'integrations']);
    }
  });

  it('reads a plan stored before webhooks and single sign-on as having neither', async () => {
    const starter = PLAN_CATALOGUE.find((p) => p.name === 'Starter')!;
    const { webhooks: _w, sso: _s, ...olderFeatures } = starter.features;
    const id = randomUUID();
    await ddb().send(
      new PutCommand({
        TableName: config().TABLE_NAME,
        Item: { ...keys.plan(95, id), type: 'plan', ...starter, id, is_public: false, features: olderFeatures },
      }),
    );
    resetPlanCache();
    const plan = (await getPlan(id))!;
    expect(plan.features).toEqual({ ...starter.features, webhooks: false, sso: false });
    expect(Object.keys(plan)).toEqual(PLAN_KEYS);
    expect(Object.keys(plan.features)).toEqual(FEATURE_KEYS);
    expect((await api.get('/plans')).body.map((p: { id: string }) => p.id)).not.toContain(id);
  });
});
