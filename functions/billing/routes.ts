import * as z from 'zod';
import { route, ok } from '#http/route';
import {
  listPublicPlans,
  currentSubscription,
  toSubscriptionOut,
  requestEnterprise,
  choosePlan,
  checkoutStatus,
  billingPortal,
  listInvoices,
  getInvoice,
  invoicePage,
  receivePaymentWebhook,
  invoiceView,
  invoiceDetailView,
  planEntity,
} from '#domain/billing';
import { email, name, text } from '#http/schemas';
import { apiKeyRoutes } from './api-key-routes.ts';
import { lazySchema } from '#shared/lazy-schema';

/** A plan as GET /plans answers it: the catalogue's item as stored (its entity's schema, built at first use). */
const planOut = () => planEntity.schema;

/** Ids the caller names: any short string, so an unknown one is the SPEC's 404 rather than a 422. */
const anId = lazySchema(() => z.string().min(1).max(100));
const invoiceParams = lazySchema(() => z.object({ invoice_id: anId() }));

export const billingRoutes = [
  route({
    method: 'GET',
    path: '/plans',
    auth: 'public',
    summary: 'Public plans, monthly and annual as separate records',
    responses: () => ({ 200: z.array(planOut()) }),
    handler: async (_req, ctx) => ok(await listPublicPlans(ctx)),
  }),
  route({
    method: 'GET',
    path: '/me/subscription',
    auth: 'user',
    summary: "The caller's active subscription and its plan",
    responses: () => ({
      200: z.object({
        plan: planOut().pick({
          id: true,
          name: true,
          interval: true,
          price_cents: true,
          currency: true,
          max_projects: true,
          max_services: true,
          features: true,
        }),
        features: z.record(z.string(), z.unknown()),
      }),
    }),
    refusals: [404],
    handler: async (_req, ctx) => ok(toSubscriptionOut(await currentSubscription(ctx))),
  }),
  route({
    method: 'POST',
    path: '/subscriptions/choose',
    auth: 'user',
    summary: 'Choose a plan: a free one applies at once; a paid one starts a checkout job',
    body: () => z.object({ plan_id: anId() }),
    responses: () => ({
      200: z.union([z.object({ status: z.literal('ok'), applied: z.literal('free') }), z.object({ job_id: z.uuid() })]),
    }),
    refusals: [403, 404, 409],
    handler: async ({ body }, ctx) => ok(await choosePlan(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/subscriptions/checkout-url/{job_id}',
    auth: 'user',
    summary: "A checkout job's payment page: 202 while it is being made, then its URL",
    params: () => z.object({ job_id: anId() }),
    responses: () => ({
      200: z.object({ status: z.literal('ready'), url: z.string() }),
      202: z.object({ status: z.literal('pending') }),
    }),
    refusals: [404, 409],
    handler: async ({ params }, ctx) => {
      const out = await checkoutStatus(ctx, params);
      return out.status === 'ready' ? ok(out) : { status: 202, body: out, headers: { 'retry-after': '1' } };
    },
  }),
  route({
    method: 'GET',
    path: '/me/billing/portal',
    auth: 'user',
    summary: "The payment provider's self-service page for the caller's billing account",
    responses: () => ({ 200: z.object({ url: z.string() }) }),
    refusals: [400],
    handler: async (_req, ctx) => ok(await billingPortal(ctx)),
  }),
  route({
    method: 'GET',
    path: '/me/invoices',
    auth: 'user',
    summary: "The caller's invoices, newest first",
    responses: () => ({ 200: z.object({ items: z.array(invoiceView.schema), total: z.int() }) }),
    handler: async (_req, ctx) => ok(await listInvoices(ctx)),
  }),
  route({
    method: 'GET',
    path: '/me/invoices/{invoice_id}',
    auth: 'user',
    summary: "One of the caller's invoices, with its line items",
    params: invoiceParams,
    responses: () => ({ 200: invoiceDetailView.schema }),
    refusals: [404],
    handler: async ({ params }, ctx) => ok(await getInvoice(ctx, params)),
  }),
  route({
    method: 'GET',
    path: '/invoice/{invoice_id}',
    auth: 'user',
    summary: "One of the caller's invoices as a printable HTML page",
    params: invoiceParams,
    refusals: [404],
    handler: async ({ params }, ctx) =>
      ok(await invoicePage(ctx, params), {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        },
      }),
  }),
  route({
    method: 'POST',
    path: '/billing/{payment_provider}/webhook',
    auth: 'public',
    summary: "The payment provider's events (signed; limited per source address)",
    params: () => z.object({ payment_provider: z.string().max(40) }),
    responses: () => ({
      200: z.object({ received: z.literal(true), outcome: z.enum(['applied', 'duplicate', 'ignored']) }),
    }),
    refusals: [400, 404, 429],
    handler: async ({ params, rawBody, headers, sourceIp }, ctx) =>
      ok({
        received: true,
        outcome: await receivePaymentWebhook(ctx, { provider: params.payment_provider, rawBody, headers, sourceIp }),
      }),
  }),
  route({
    method: 'POST',
    path: '/enterprise/request',
    auth: 'public',
    summary: 'Ask sales about the Enterprise+ plan (mailed to sales; limited per address)',
    body: () =>
      z.object({ name: name(200), email: email(), phone: text(50), message: z.string().trim().min(10).max(5000) }),
    responses: () => ({ 200: z.object({ status: z.literal('ok') }) }),
    refusals: [429],
    handler: async ({ body, sourceIp }, ctx) => {
      await requestEnterprise(ctx, { ...body, client: { sourceIp } });
      return ok({ status: 'ok' });
    },
  }),
  ...apiKeyRoutes,
];
