import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configVariables } from '#shared/config';

/** The README's configuration section is where an operator looks for every variable. */
const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const configuration = README.slice(
  README.indexOf('## Configuration'),
  README.indexOf('\n## ', README.indexOf('## Configuration') + 1),
);

describe('the README', () => {
  it('documents every environment variable the service reads in its Configuration section', () => {
    expect(configuration.length).toBeGreaterThan(1000);
    expect(configVariables().filter((name) => !configuration.includes(`\`${name}\``))).toEqual([]);
  });

  it('states the Node version npm start runs on and the prerequisites of the two commands', () => {
    expect(README).toMatch(/Node 24/);
    expect(README).toMatch(/Java 17/);
    expect(README).toMatch(/apt-get install -y chromium/);
  });
});
