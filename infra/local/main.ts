import { reloadConfig } from '#shared/config';
import { spawnOwnDynamo } from './dynamo.ts';
import { stopOnSignals } from './stop-on-signals.ts';

/**
 * `npm start`: the whole product on this machine; Ctrl-C or SIGTERM stops every child process. The
 * terminal shows one readable line per request; the EMF metric lines the cloud's logs carry are
 * printed only when asked for (POWERTOOLS_METRICS_DISABLED=false).
 *
 * What takes the time is DynamoDB Local's JVM starting and the app's modules loading: the JVM is
 * spawned first, with the light modules above, and the app is loaded while it starts.
 */
const metricsOff: Record<string, string> = process.env.POWERTOOLS_METRICS_DISABLED
  ? {}
  : { POWERTOOLS_METRICS_DISABLED: 'true' };
const env = { STAGE: 'local', ...metricsOff };
const c = reloadConfig(env);
const dynamo = c.DYNAMODB_ENDPOINT ? undefined : await spawnOwnDynamo(c, { quickStart: true });

const [{ startLocalStack }, { ensureWebBuild }, sso] = await Promise.all([
  import('./stack.ts'),
  import('../build/web-build.ts'),
  import('./sso-stand-ins.ts'),
]);
// Single sign-on's stand-ins: the DNS server before the stack (its address is configuration), the IdP after (it needs the callback's address).
const dns = await sso.startDnsForLocal(c, env);
// The dashboard is built (only when web/ changed since its last build) while the stack starts.
const web = ensureWebBuild({ say: (line) => console.log(line) }).catch((err: unknown) => {
  console.error('The dashboard could not be built (the API runs without it):', err);
  return undefined;
});
const [stack, built] = await Promise.all([startLocalStack({ env, accessLog: true, dynamo }), web]);
console.log(`Infrastructure Catalog is running at ${stack.url}`);
console.log(`  Dashboard: ${stack.url}/${built?.built ? ` (built in ${(built.ms / 1000).toFixed(1)} s)` : ''}`);
console.log(
  `  API reference: ${stack.url}/docs (document: ${stack.url}/openapi.json)   mail: ${stack.config.LOCAL_DATA_DIR}/outbox/`,
);
console.log(
  `  DynamoDB Local: ${stack.dynamoEndpoint} (table ${stack.config.TABLE_NAME}, data in ${stack.config.LOCAL_DATA_DIR}/dynamodb)`,
);
const idp = await sso.startIdpForLocal(stack.url, stack.config, dns, (line) => console.log(line));

stopOnSignals(async () => {
  await Promise.allSettled([idp.stop(), dns?.stop()]);
  await stack.stop();
});
