import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard's build (`npm run build:web`; `npm start` and the test run build it when `web/dist` is
 * stale, infra/build/web-build.ts). Preact's JSX through Vite's own transform, no plugin; hashed files under
 * `/assets/`; nothing inlined (the CSP allows scripts, styles and workers from this origin only).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  // `@infracat/client/<module>` is the client package's source (web/tsconfig.json's `paths`), one module
  // each, so the bundle takes only the browser-safe parts (never the CLI's Node dependencies).
  resolve: { tsconfigPaths: true },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 2000, // ELK (1.4 MB) is one chunk, loaded by the layout worker only
    // The worker's bundling (ELK) dominates the build time: known, so not reported on every `npm start`.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  worker: { format: 'es' },
});
