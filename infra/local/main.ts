import { startLocalStack } from './stack';

/** `npm start`: the whole product on this machine; Ctrl-C or SIGTERM stops every child process. */
const stack = await startLocalStack({ env: { STAGE: 'local' } });
console.log(`Infrastructure Catalog is running at ${stack.url}`);
console.log(`  API reference: ${stack.url}/openapi.json   data: ${stack.config.LOCAL_DATA_DIR}   mail: ${stack.config.LOCAL_DATA_DIR}/outbox/`);

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
