/**
 * Stands in for `node:http` in the bundles (esbuild `alias`, see `esbuildArgs` in stack.ts and
 * test/bench/cold.ts). An ESM `import … from 'node:http'` makes Node build the module's ESM facade,
 * which reads every export, and some of them (WebSocket, MessageEvent, CloseEvent, …) are getters that
 * load undici: some 10 ms of CPU at every cold start, for nothing (@middy/util imports only
 * STATUS_CODES; the tracer, loaded on first use, the module object). `process.getBuiltinModule` hands
 * out the same module object without the facade, so patching it (X-Ray) still patches the real one.
 */
const http = process.getBuiltinModule('node:http');
export const { STATUS_CODES, request, get, Agent } = http;
export default http;
