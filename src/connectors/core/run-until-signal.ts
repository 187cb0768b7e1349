/** Starts a connector, keeps it running until SIGINT or SIGTERM, then stops it: the life of a `callcenter connect …` process. */
export async function runUntilSignal(connector: { start(): Promise<void>; stop(): Promise<void> }): Promise<number> {
  await connector.start();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await connector.stop();
  return 0;
}
