import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, ApiError, type InvoiceDetail, type Plan } from '../../api';
import { to } from '../../links';
import { Alert, Loaded, message, Page, useAction, useLoad } from '../../ui';
import { isDowngrade } from '@infracat/client/plans';
import { limitText, money, priceOf, when } from './plans';
import { TableWrap } from '../../table-wrap';
import { Limits } from './plan-usage';

/** The public plans, monthly and annual side by side; choosing goes to the checkout (paid), applies (free) or to the preflight (downgrade). */
function Plans(props: { plans: Plan[]; currentId?: string }) {
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const current = props.plans.find((p) => p.id === props.currentId);
  const { route } = useLocation();
  const choose = async (plan: Plan) => {
    setBusy(plan.id);
    setError(undefined);
    try {
      const chosen = await ok(api.POST('/subscriptions/choose', { body: { plan_id: plan.id } }));
      if (!('job_id' in chosen)) return void location.reload();
      // The checkout page is made by a background job: ask until it is ready, then go there.
      for (;;) {
        const out = await ok(
          api.GET('/subscriptions/checkout-url/{job_id}', { params: { path: { job_id: chosen.job_id } } }),
        );
        if (out.status === 'ready') return void location.assign(out.url);
        await new Promise((r) => setTimeout(r, 500));
      }
    } catch (err) {
      setError(message(err));
      setBusy(undefined);
    }
  };
  return (
    <>
      <Alert>{error}</Alert>
      <TableWrap label="Plans">
        <table class="plans">
          <caption class="sr-only">Plans</caption>
          <thead>
            <tr>
              <th scope="col">Plan</th>
              <th scope="col">Price</th>
              <th scope="col">Projects</th>
              <th scope="col">Environments per project</th>
              <th scope="col">Services</th>
              <th scope="col">Project users</th>
              <th scope="col">API keys</th>
              <th scope="col">
                <span class="sr-only">Choose</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.plans.map((p) => {
              const label = `${p.name}${p.interval === 'annual' ? ' (annual)' : p.interval === 'monthly' ? ' (monthly)' : ''}`;
              return (
                <tr key={p.id} class={p.id === props.currentId ? 'current' : undefined}>
                  <th scope="row">{label}</th>
                  <td>{priceOf(p)}</td>
                  <td>{limitText(p.max_projects)}</td>
                  <td>{limitText(p.max_envs_per_project)}</td>
                  <td>{limitText(p.max_services)}</td>
                  <td>{limitText(p.max_project_users)}</td>
                  <td>{limitText(p.max_api_keys_per_user)}</td>
                  <td>
                    {p.id === props.currentId ? (
                      <strong>Current plan</strong>
                    ) : p.interval === 'custom' ? (
                      <span class="muted">Ask sales</span>
                    ) : current && isDowngrade(current, p) ? (
                      <button
                        type="button"
                        onClick={() => route(to.downgrade(p.id))}
                        aria-label={`Downgrade to ${label}`}
                      >
                        Downgrade…
                      </button>
                    ) : (
                      <button
                        type="button"
                        class="primary"
                        disabled={busy !== undefined}
                        onClick={() => void choose(p)}
                        aria-label={`Choose ${label}`}
                      >
                        {busy === p.id ? 'Opening checkout…' : 'Choose'}
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}

function InvoiceLines(props: { id: string }) {
  const invoice = useLoad(
    (signal) => ok(api.GET('/me/invoices/{invoice_id}', { params: { path: { invoice_id: props.id } }, signal })),
    [props.id],
  );
  return (
    <Loaded state={invoice} label="line items">
      {(inv: InvoiceDetail) => (
        <ul class="plain lines">
          {inv.line_items.map((l, i) => (
            <li key={i}>
              {l.description} · {l.qty} × {money(l.unit_price_cents, inv.currency)}
            </li>
          ))}
          <li>
            Subtotal {money(inv.subtotal_cents, inv.currency)} · tax {money(inv.tax_cents, inv.currency)}
          </li>
        </ul>
      )}
    </Loaded>
  );
}

function Invoices() {
  const invoices = useLoad((signal) => ok(api.GET('/me/invoices', { signal })), []);
  const [open, setOpen] = useState<string>();
  return (
    <Loaded state={invoices} label="invoices">
      {({ items }) =>
        items.length ? (
          <ul class="cards invoices">
            {items.map((inv) => (
              <li key={inv.id}>
                <span>
                  <strong>{inv.invoice_number}</strong> <span class={`status status-${inv.status}`}>{inv.status}</span>
                </span>
                <span>{money(inv.total_cents, inv.currency)}</span>
                <span class="muted">
                  issued {when(inv.issued_at)}
                  {inv.paid_at ? `, paid ${when(inv.paid_at)}` : ''}
                </span>
                <span class="row-actions">
                  <button
                    type="button"
                    aria-expanded={open === inv.id}
                    onClick={() => setOpen(open === inv.id ? undefined : inv.id)}
                    aria-label={`Line items of invoice ${inv.invoice_number}`}
                  >
                    Line items
                  </button>
                  <a
                    href={inv.pdf_url}
                    target="_blank"
                    rel="noopener"
                    aria-label={`Printable invoice ${inv.invoice_number}`}
                  >
                    Printable
                  </a>
                </span>
                {open === inv.id && <InvoiceLines id={inv.id} />}
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">No invoice yet.</p>
        )
      }
    </Loaded>
  );
}

/** The payment provider's self-service page (cards, receipts, cancelling). */
function Portal() {
  const { act, busy, error } = useAction();
  const open = () => act(async () => location.assign((await ok(api.GET('/me/billing/portal'))).url));
  return (
    <>
      <button type="button" onClick={() => void open()} disabled={busy}>
        Open billing portal
      </button>
      <Alert>{error}</Alert>
    </>
  );
}

/** What the checkout page sent the payer back with (`/billing/success`, `/billing/cancelled`, `/billing`). */
const RETURNS: Record<string, string> = {
  success: 'Payment received: your new plan is active.',
  cancelled: 'Checkout cancelled: your plan has not changed.',
};

/** Plan & billing (`/account/billing`): the plan, its limits with usage bars, the plans, invoices, portal. */
export function Billing() {
  const { query } = useLocation();
  const subscription = useLoad(
    (signal) =>
      ok(api.GET('/me/subscription', { signal })).catch((err) => {
        if (err instanceof ApiError && err.status === 404) return null; // SPEC: no active subscription is a normal state
        throw err;
      }),
    [],
  );
  const limits = useLoad((signal) => ok(api.GET('/me/limits/status', { signal })), []);
  const plans = useLoad((signal) => ok(api.GET('/plans', { signal })), []);
  const plan = subscription.data?.plan;
  return (
    <Page
      title="Plan & billing"
      actions={
        <a class="button" href={to.archived}>
          Archived items
        </a>
      }
    >
      {RETURNS[query.checkout] && (
        <p class={query.checkout === 'success' ? 'ok' : 'alert'} role="status">
          {RETURNS[query.checkout]}
        </p>
      )}
      <section aria-labelledby="plan-title">
        <h2 id="plan-title">Current plan</h2>
        <Loaded state={subscription} label="your plan">
          {(sub) =>
            sub ? (
              <p class="current-plan">
                <strong>{sub.plan.name}</strong> · {priceOf(sub.plan)}
              </p>
            ) : (
              <p>No active subscription: choose a plan below.</p>
            )
          }
        </Loaded>
        <Loaded state={limits} label="limits">
          {(s) => <Limits status={s} />}
        </Loaded>
      </section>
      <section aria-labelledby="plans-title">
        <h2 id="plans-title">Plans</h2>
        <Loaded state={plans} label="plans">
          {(list) => <Plans plans={list} currentId={plan?.id} />}
        </Loaded>
      </section>
      <section aria-labelledby="invoices-title">
        <h2 id="invoices-title">Invoices</h2>
        <Invoices />
      </section>
      <section aria-labelledby="portal-title">
        <h2 id="portal-title">Payment details</h2>
        <Portal />
      </section>
    </Page>
  );
}

/** The checkout's and portal's way back into the app: on to the billing screen, saying how it went. */
export function BillingReturn(props: { outcome?: string }) {
  const { route } = useLocation();
  useEffect(() => route(props.outcome ? `${to.billing}?checkout=${props.outcome}` : to.billing, true), [props.outcome]);
  return null;
}
