import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newestJavaHome } from '../../infra/local/java.ts';

/** DynamoDB Local runs on the newest Java the machine has: the PATH's `java` or one under the JVM folder. */
let root: string;
let jvm: string;
/** A Java home under `dir` named `name`, its `release` file stating `version` (none when undefined). */
const java = (dir: string, name: string, version?: string) => {
  const home = join(dir, name);
  mkdirSync(join(home, 'bin'), { recursive: true });
  writeFileSync(join(home, 'bin', 'java'), '');
  if (version) writeFileSync(join(home, 'release'), `IMPLEMENTOR="Someone"\nJAVA_VERSION="${version}"\n`);
  return home;
};
/** A PATH whose first `java` is a link to `home`'s, as Debian's alternatives make it. */
const pathTo = (home: string) => {
  const bin = join(root, 'usr-bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(join(home, 'bin', 'java'), join(bin, 'java'));
  return { PATH: `${join(root, 'empty')}:${bin}` };
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'java-'));
  jvm = join(root, 'jvm');
  mkdirSync(jvm);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('newestJavaHome', () => {
  it("answers a newer Java than the PATH's, and nothing when the PATH's is the newest", () => {
    const seventeen = java(jvm, 'java-17-openjdk-amd64', '17.0.15');
    const twentyFive = java(jvm, 'temurin-25-jdk-amd64', '25.0.3');
    java(jvm, 'java-8', '1.8.0_402');
    expect(newestJavaHome(pathTo(seventeen), jvm)).toBe(twentyFive);
    rmSync(join(root, 'usr-bin'), { recursive: true });
    expect(newestJavaHome(pathTo(twentyFive), jvm)).toBeUndefined();
  });

  it('leaves a java on the PATH whose version it cannot read, and picks the newest when the PATH has none', () => {
    const own = java(root, 'own-build');
    const twentyOne = java(jvm, 'jdk-21', '21.0.2');
    expect(newestJavaHome(pathTo(own), jvm)).toBeUndefined();
    expect(newestJavaHome({ PATH: join(root, 'empty') }, jvm)).toBe(twentyOne);
    expect(newestJavaHome({ PATH: join(root, 'empty') }, join(root, 'absent'))).toBeUndefined();
  });
});
