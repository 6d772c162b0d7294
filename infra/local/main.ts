import { startLocalStack } from './stack';

/**
 * `npm start`: the whole product on this machine; Ctrl-C or SIGTERM stops every child process. The
 * terminal shows one readable line per request; the EMF metric lines the cloud's logs carry are
 * printed only when asked for (POWERTOOLS_METRICS_DISABLED=false).
 */
const metricsOff: Record<string, string> = process.env.POWERTOOLS_METRICS_DISABLED ? {} : { POWERTOOLS_METRICS_DISABLED: 'true' };
const stack = await startLocalStack({ env: { STAGE: 'local', ...metricsOff }, accessLog: true });
console.log(`Infrastructure Catalog is running at ${stack.url}`);
console.log(`  API reference: ${stack.url}/docs (document: ${stack.url}/openapi.json)   mail: ${stack.config.LOCAL_DATA_DIR}/outbox/`);
console.log(`  DynamoDB Local: ${stack.dynamoEndpoint} (table ${stack.config.TABLE_NAME}, data in ${stack.config.LOCAL_DATA_DIR}/dynamodb)`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received, stopping...`);
    await stack.stop();
    process.exit(0);
  });
}
