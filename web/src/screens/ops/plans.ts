import type { Plan } from '../../api';

/** Money as the plans and invoices give it: integer cents and a currency code. */
export const money = (cents: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** A plan's price in words: "€29.00 / month", "Free", "agreed with sales". */
export function priceOf(p: Pick<Plan, 'price_cents' | 'currency' | 'interval'>): string {
  if (p.interval === 'none') return 'Free';
  if (p.interval === 'custom') return 'Agreed with sales';
  return `${money(p.price_cents, p.currency)} / ${p.interval === 'annual' ? 'year' : 'month'}`;
}

/** A limit: null is unlimited. */
export const limitText = (n: number | null | undefined) => (n === null || n === undefined ? 'unlimited' : String(n));
