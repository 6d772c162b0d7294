#!/usr/bin/env node
// The `infracat` command: the built CLI when the package is built (dist/), else its TypeScript sources (a
// clone after `npm ci`, no build step), run by Node itself where it strips types (22.18 and later), through
// tsx on an older Node. Node's compile cache makes every start after the first skip compiling (and stripping).
import { existsSync } from 'node:fs';
import module from 'node:module';

module.enableCompileCache?.(); // Node 22.1 and later
const built = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  if (!process.features.typescript) {
    const { register } = await import('tsx/esm/api');
    register();
  }
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
