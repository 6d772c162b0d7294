/** Stops a running stack once on Ctrl-C or SIGTERM, then exits (`npm start` and `npm run start:deployed`). */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${signal} received, stopping...`);
      await stop();
      process.exit(0);
    });
  }
}
