import { randomUUID } from 'node:crypto';
import { config, type Config } from './config';

/** What every domain function gets: the clock (injectable for tests), id generation and configuration. */
export interface AppContext {
  now(): Date;
  /** When the request arrived, before anything was read (sync cursors are taken from it). */
  receivedAt: Date;
  newId(): string;
  config: Config;
}

let clock: () => Date = () => new Date();

export function appContext(): AppContext {
  return { now: () => clock(), receivedAt: clock(), newId: randomUUID, config: config() };
}

/** Tests replace the clock; `undefined` restores the real one. */
export function useClock(fn?: () => Date): void {
  clock = fn ?? (() => new Date());
}

export const iso = (d: Date) => d.toISOString();
export const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);
