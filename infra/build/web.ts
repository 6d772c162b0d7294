import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureWebBuild, WEB_DIST } from './web-build.ts';

/**
 * `npm run build:web`: builds the dashboard into web/dist (what `npm start` serves and CloudFront will),
 * and prints each file's size, gzipped.
 */
const { ms } = await ensureWebBuild({ force: true });
const assets = join(WEB_DIST, 'assets');
console.log(`built web/dist in ${(ms / 1000).toFixed(1)} s`);
for (const name of readdirSync(assets).sort()) {
  const bytes = readFileSync(join(assets, name));
  console.log(
    `  assets/${name.padEnd(40)} ${(bytes.length / 1024).toFixed(1).padStart(8)} KB  ${(gzipSync(bytes).length / 1024).toFixed(1).padStart(7)} KB gzipped`,
  );
}
