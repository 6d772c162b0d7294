import * as z from 'zod';
import { route, ok, created } from '#http/route';
import { accountOut, email, text } from '#http/schemas';
import { activeFeatures, startingSubscription } from '#domain/billing';
import {
  createAccountAsStaff,
  getAccountForStaff,
  listAccounts,
  listSecurityLogForStaff,
  securityLogEntryOut,
  toAdminUserOut,
  updateAccountAsStaff,
} from '#domain/identity';
import { nextCursorHeaders, pageQuery } from '#http/paging';
import { lazySchema } from '#shared/lazy-schema';

const accountType = lazySchema(() => z.enum(['customer', 'project_user', 'staff']));
const userParams = lazySchema(() => z.object({ user_id: z.uuid() }));

/** The staff view of an account (docs/decisions/0014-blocking-staff-administration-and-identity-data.md). */
const adminUserOut = lazySchema(() =>
  accountOut().extend({
    is_active: z.boolean(),
    account_type: accountType(),
    can_create_projects: z.boolean(),
    mfa_enabled: z.boolean(),
    last_login_at: z.string().nullable(),
    created_at: z.string(),
  }),
);

export const adminRoutes = [
  route({
    method: 'GET',
    path: '/admin/features/my',
    auth: 'user',
    summary: "Feature flags of the caller's active plan",
    responses: () => ({ 200: z.object({ features: z.record(z.string(), z.unknown()) }) }),
    handler: async (_req, ctx) => ok({ features: await activeFeatures(ctx) }),
  }),
  route({
    method: 'GET',
    path: '/admin/users',
    auth: 'staff',
    summary: 'Every account, ordered by e-mail',
    responses: () => ({ 200: z.array(adminUserOut()) }),
    handler: async (_req, ctx) => ok((await listAccounts(ctx)).map(toAdminUserOut)),
  }),
  route({
    method: 'GET',
    path: '/admin/users/{user_id}',
    auth: 'staff',
    summary: 'One account',
    params: userParams,
    responses: () => ({ 200: adminUserOut() }),
    refusals: [404],
    handler: async ({ params }, ctx) => ok(toAdminUserOut(await getAccountForStaff(ctx, params))),
  }),
  route({
    method: 'GET',
    path: '/admin/users/{user_id}/security-log',
    auth: 'staff',
    summary: "One account's security log, newest first (staff); the next page's cursor in X-Next-Cursor",
    params: userParams,
    query: pageQuery,
    responses: () => ({ 200: z.array(securityLogEntryOut()) }),
    handler: async ({ params, query }, ctx) => {
      const { entries, next } = await listSecurityLogForStaff(ctx, { ...params, ...query });
      return ok(entries, { headers: nextCursorHeaders(next) });
    },
  }),
  route({
    method: 'PATCH',
    path: '/admin/users/{user_id}',
    auth: 'staff',
    summary: 'Block or unblock an account, change its class or staff standing',
    params: userParams,
    body: () =>
      z.object({
        is_active: z.boolean().optional(),
        account_type: accountType().optional(),
        is_staff: z.boolean().optional(),
        admin_role: text(50),
      }),
    responses: () => ({ 200: adminUserOut() }),
    refusals: [400, 404],
    handler: async ({ params, body }, ctx) =>
      ok(toAdminUserOut(await updateAccountAsStaff(ctx, { ...params, ...body }))),
  }),
  route({
    method: 'POST',
    path: '/users',
    auth: 'staff',
    summary: 'Create an account (staff; self-service sign-up is POST /auth/register)',
    body: () =>
      z.object({
        email: email(),
        password: z.string().min(8).max(1024),
        name: text(200),
        phone: text(50),
        account_type: accountType().optional(),
        is_staff: z.boolean().optional(),
        admin_role: text(50),
      }),
    responses: () => ({ 201: adminUserOut() }),
    refusals: [400],
    handler: async ({ body }, ctx) =>
      created(toAdminUserOut(await createAccountAsStaff(ctx, body, startingSubscription))),
  }),
];
