import type { Plan } from '../../api';

/** Money as the plans and invoices give it: integer cents and a currency code. */
export const money = (cents: number, currency: string) => new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** A plan's price in words: "€29.00 / month", "Free", "agreed with sales". */
export function priceOf(p: Pick<Plan, 'price_cents' | 'currency' | 'interval'>): string {
  if (p.interval === 'none') return 'Free';
  if (p.interval === 'custom') return 'Agreed with sales';
  return `${money(p.price_cents, p.currency)} / ${p.interval === 'annual' ? 'year' : 'month'}`;
}

/** A limit: null is unlimited. */
export const limitText = (n: number | null | undefined) => (n === null || n === undefined ? 'unlimited' : String(n));

/** The limits a plan change compares (the service's downgrade rule, `shared/domain/lifecycle/downgrade.ts`). */
const LIMITS = ['max_projects', 'max_envs_per_project', 'max_services', 'max_project_users', 'max_api_keys_per_user'] as const;
const isFree = (p: Plan) => p.interval === 'none' || p.price_cents === 0 && p.interval !== 'custom';
const lower = (to: number | null, from: number | null) => to !== null && (from === null || to < from);

/** Whether moving from `from` to `to` is a downgrade (it then goes through the preflight, not the checkout). */
export function isDowngrade(from: Plan, to: Plan): boolean {
  if (isFree(to) !== isFree(from)) return isFree(to);
  return LIMITS.some((l) => lower(to[l], from[l])) || (LIMITS.every((l) => to[l] === from[l]) && to.price_cents < from.price_cents);
}
