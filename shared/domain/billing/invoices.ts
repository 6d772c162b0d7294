import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { queryPartition } from '#db/query';
import { onContention } from '#db/retry';
import { putNewStep } from '#db/steps';
import { nextNumberStep } from '#db/sequence';
import { transact, type TransactStep } from '#db/transact';
import { escapeHtml } from '#mail/html';
import { actorAccount, type AppContext } from '#shared/context';
import { conflict, notFound } from '#shared/errors';
import { invoiceDetailView, invoiceEntity, invoiceView, type Invoice } from './invoice-entity.ts';
import type { Plan } from './plans.ts';

export const INVOICE_NOT_FOUND = 'Invoice not found';

/** What an invoice is for: one subscription period of a plan, at `amountCents` (the provider's figure when it charged). */
export interface InvoiceDraft {
  userId: string;
  subscriptionId: string;
  plan: Plan;
  amountCents: number;
  currency: string;
}

const formatNumber = (n: number) => `INV-${String(n).padStart(6, '0')}`;

/** Thrown by the counter step when another invoice took the number first; the issuing transaction is re-run. */
const NUMBER_TAKEN = conflict('Invoice number taken');

/**
 * Runs `steps` (the change the invoice records) in one transaction with a paid invoice and the
 * advance of the deployment's invoice counter, so numbers are unique and leave no gaps: the
 * counter moves from the value read to the next only if nobody moved it in between (else re-read
 * and retry). Answers the invoice.
 */
export async function transactWithInvoice(
  steps: TransactStep[],
  draft: InvoiceDraft,
  ctx: AppContext,
): Promise<Invoice> {
  const id = ctx.ids.newId();
  return onContention(
    async () => {
      const last = (await getItem<{ value: number }>(keys.invoiceCounter))?.value ?? 0;
      const now = ctx.clock.now().toISOString();
      const { plan } = draft;
      const invoice = invoiceEntity.create({
        id,
        user_id: draft.userId,
        invoice_number: formatNumber(last + 1),
        status: 'paid',
        currency: draft.currency,
        subtotal_cents: draft.amountCents,
        tax_cents: 0,
        total_cents: draft.amountCents,
        issued_at: now,
        paid_at: now,
        subscription_id: draft.subscriptionId,
        line_items: [
          {
            item_type: 'subscription',
            plan_id: plan.id,
            description: `${plan.name} plan (${plan.interval})`,
            qty: 1,
            unit_price_cents: draft.amountCents,
          },
        ],
      });
      await transact([
        ...steps,
        nextNumberStep(keys.invoiceCounter, 'value', last, NUMBER_TAKEN),
        putNewStep(invoiceEntity.encode(keys.invoice(draft.userId, id), invoice)),
      ]);
      return invoice;
    },
    (err) => err === NUMBER_TAKEN,
  );
}

const pdfUrl = (ctx: AppContext, id: string) => `${ctx.config.API_BASE_URL.replace(/\/$/, '')}/invoice/${id}`;

/** GET /me/invoices: the caller's invoices, newest first (SPEC: `{items, total}`, no paging). One Query. */
export async function listInvoices(ctx: AppContext) {
  const userId = actorAccount(ctx).id;
  const items = (await queryPartition(keys.account(userId).PK, keys.invoicePrefix)).map(invoiceEntity.decode);
  items.sort((a, b) => b.issued_at.localeCompare(a.issued_at) || b.invoice_number.localeCompare(a.invoice_number));
  return { items: items.map((i) => invoiceView.project(i, { pdf_url: pdfUrl(ctx, i.id) })), total: items.length };
}

/** One of the caller's invoices; another account's is 'Invoice not found', as a missing one is. */
async function ownInvoice(ctx: AppContext, invoiceId: string): Promise<Invoice> {
  const raw = await getItem(keys.invoice(actorAccount(ctx).id, invoiceId));
  if (!raw) throw notFound(INVOICE_NOT_FOUND);
  return invoiceEntity.decode(raw);
}

/** GET /me/invoices/{id}: the invoice with its line items. */
export async function getInvoice(ctx: AppContext, input: { invoice_id: string }) {
  const invoice = await ownInvoice(ctx, input.invoice_id);
  return invoiceDetailView.project(invoice, { pdf_url: pdfUrl(ctx, invoice.id) });
}

const money = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${escapeHtml(currency.toUpperCase())}`;

/** GET /invoice/{id}: the invoice as a self-contained printable page (no scripts, no outside resources). */
export async function invoicePage(ctx: AppContext, input: { invoice_id: string }): Promise<string> {
  const i = await ownInvoice(ctx, input.invoice_id);
  const account = actorAccount(ctx);
  const rows = i.line_items
    .map(
      (l) =>
        `<tr><td>${escapeHtml(l.description)}</td><td class="n">${l.qty}</td><td class="n">${money(l.unit_price_cents, i.currency)}</td><td class="n">${money(l.qty * l.unit_price_cents, i.currency)}</td></tr>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Invoice ${escapeHtml(i.invoice_number)}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:720px;margin:2em auto;color:#111}table{width:100%;border-collapse:collapse}td,th{padding:.4em;border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}@media print{body{margin:0}}</style></head>
<body><h1>Invoice ${escapeHtml(i.invoice_number)}</h1>
<p>Infrastructure Catalog<br>Billed to: ${escapeHtml(account.email)}</p>
<p>Issued: ${escapeHtml(i.issued_at.slice(0, 10))}<br>Status: ${escapeHtml(i.status)}${i.paid_at ? `<br>Paid: ${escapeHtml(i.paid_at.slice(0, 10))}` : ''}</p>
<table><thead><tr><th>Description</th><th class="n">Qty</th><th class="n">Unit price</th><th class="n">Amount</th></tr></thead><tbody>${rows}</tbody></table>
<p class="n">Subtotal: ${money(i.subtotal_cents, i.currency)}<br>Tax: ${money(i.tax_cents, i.currency)}<br><strong>Total: ${money(i.total_cents, i.currency)}</strong></p>
</body></html>`;
}
