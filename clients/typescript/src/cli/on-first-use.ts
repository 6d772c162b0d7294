import { createRequire } from 'node:module';

/**
 * Packages only some commands need, loaded when one of them first asks: every other command starts
 * without them (`infracat --version` took 0.27 CPU-s with every package loaded at start;
 * docs/decisions/1024-one-shot-commands-start-light.md). Both are CommonJS packages, so a plain require
 * keeps their callers synchronous.
 */
const require = createRequire(import.meta.url);

/** YAML: `-o yaml`, export and import. */
export const yaml = (): typeof import('yaml') => require('yaml');

/** The progress bar of a job followed on a terminal. */
export const progressBar = (): typeof import('cli-progress') => require('cli-progress');
