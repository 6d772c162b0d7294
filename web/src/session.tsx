import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Account } from './api';

export interface Session {
  /** The signed-in account; undefined while signed out. */
  me?: Account;
  /** After a sign-in (or registration followed by one): loads the account. */
  signedIn: () => Promise<void>;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<Session>({ signedIn: async () => {}, signOut: async () => {} });
export const useSession = () => useContext(SessionContext);
