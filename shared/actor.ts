/**
 * Who a request's caller is: the account and the session as stored (their entities: `account-entity.ts`), and
 * what `AppContext.actor` holds. A leaf (it imports only their types), so that `shared/context.ts` names the
 * caller without importing the identity context, which owns these items and re-exports the types (`#domain/identity`).
 */

import type { Account, Session } from './account-entity.ts';

export type { Account, Session } from './account-entity.ts';
export type AccountType = Account['account_type'];

/** The staff test, decided once: staff and superusers reach the staff surfaces (`/admin/*`) and act for others. */
export const isStaff = (a: { is_staff?: boolean; is_superuser?: boolean }): boolean =>
  Boolean(a.is_staff || a.is_superuser);

/**
 * What an API key's access token carries to each request, re-read from the key on every
 * request: its id, its scopes (`read`, `write`) and the projects it is limited to (null: every project).
 */
export interface KeyGrant {
  key_id: string;
  scopes: string[];
  project_ids: string[] | null;
}

/**
 * The signed-in caller: the account as re-read for this request, and what its token belongs to:
 * a session (a person signed in), or an API key (`key`, a machine; `session` is then null).
 */
export interface Actor {
  account: Account;
  session: Session | null;
  key: KeyGrant | null;
}
