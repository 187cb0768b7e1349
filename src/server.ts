import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { migrate } from './db/migrate.js';
import { openDatabase } from './db/open.js';
import { systemClock } from './clock.js';
import { startDemo } from './demo/start.js';
import { boundHeapGrowth } from './heap.js';

/**
 * The process entry: database → migrations → first-start bootstrap → app →
 * listen. SIGTERM/SIGINT close the server (in-flight requests finish) and
 * then the database.
 */
export async function startServer(config: Config): Promise<void> {
  // Bounded RSS under fast allocation (the CSV export at full speed): src/heap.ts.
  boundHeapGrowth();
  const db = openDatabase(config);
  let migrated = false;
  const { app, services } = await buildApp({ config, db, ready: () => migrated });
  let demo: Awaited<ReturnType<typeof startDemo>> | undefined;
  try {
    const applied = await migrate(db);
    migrated = true;
    if (applied.length) app.log.info({ applied }, 'migrations applied');
    const created = await services.accounts.bootstrap(config.adminUsername, config.adminPassword);
    if (created) {
      if (created.generatedPassword) {
        // Printed once, on purpose: it is the only way to learn it. Not through the logger, so
        // log shippers that store the structured log do not keep it.
        process.stdout.write(
          `\nOperator account created: username "${created.username}", password "${created.generatedPassword}"\n` +
            'Set CALLCENTER_ADMIN_USERNAME / CALLCENTER_ADMIN_PASSWORD to choose them. This password is not shown again.\n\n',
        );
      } else {
        app.log.info({ username: created.username }, 'operator account created from CALLCENTER_ADMIN_USERNAME');
      }
    }
    if (config.demo)
      demo = await startDemo(app, services.accounts, systemClock, app.log, config.recordingsDir).catch(
        (err: unknown) => (app.log.error({ err }, 'demo tenant could not start'), undefined),
      );
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    app.log.error({ err }, 'start-up failed');
    await app.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw err;
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await demo?.stop().catch(() => undefined);
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
