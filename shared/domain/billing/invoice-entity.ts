import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';

const lineItem = () =>
  z.object({
    item_type: z.string(),
    plan_id: z.uuid().nullable(),
    description: z.string(),
    qty: z.int(),
    unit_price_cents: z.int(),
  });

/** An invoice of an account (SPEC "Invoice"): amounts in integer cents, line items stored with it. */
export const invoiceEntity = defineEntity('invoice', () =>
  z.object({
    id: z.uuid(),
    user_id: z.uuid(),
    invoice_number: z.string(),
    status: z.enum(['paid', 'open', 'void']),
    currency: z.string(),
    subtotal_cents: z.int(),
    tax_cents: z.int().default(0),
    total_cents: z.int(),
    issued_at: z.string(),
    paid_at: z.string().nullable().default(null),
    subscription_id: z.uuid(),
    line_items: z.array(lineItem()).default([]),
  }),
);
export type Invoice = z.infer<typeof invoiceEntity.schema>;

const summary = {
  id: true,
  invoice_number: true,
  status: true,
  currency: true,
  subtotal_cents: true,
  tax_cents: true,
  total_cents: true,
  issued_at: true,
  paid_at: true,
  /** The printable page (GET /invoice/{id}). */
  pdf_url: () => z.string(),
} as const;
/** GET /me/invoices: one entry per invoice, without its line items. */
export const invoiceView = defineView(invoiceEntity, summary);
/** GET /me/invoices/{id}: the invoice with its line items. */
export const invoiceDetailView = defineView(invoiceEntity, { ...summary, line_items: true });
