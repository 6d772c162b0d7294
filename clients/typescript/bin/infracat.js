#!/usr/bin/env node
// The `infracat` command: the built CLI when the package is built (dist/), else its TypeScript
// sources through tsx (a clone after `npm ci`, no build step).
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
