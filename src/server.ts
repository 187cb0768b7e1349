import v8 from 'node:v8';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { migrate } from './db/migrate.js';
import { openDatabase } from './db/open.js';
import { systemClock } from './clock.js';
import { startDemo } from './demo/start.js';
import { swallowed } from './swallowed.js';

/**
 * The process entry: database → migrations → first-start bootstrap → app →
 * listen. SIGTERM/SIGINT close the server (in-flight requests finish) and
 * then the database.
 */
export async function startServer(config: Config): Promise<void> {
  // Bounded RSS under fast allocation (the CSV export at full speed): see boundHeapGrowth.
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
    // The demo's outbound switch reads the stream over HTTP, as a real one does: only once the server listens.
    if (demo) await demo.startOutbound(ownUrl(app)).catch((err: unknown) => app.log.error({ err }, 'demo campaign could not start (the inbound demo runs on)'));
  } catch (err) {
    app.log.error({ err }, 'start-up failed');
    await app.close().catch(swallowed('server.shutdown'));
    await db.close().catch(swallowed('server.shutdown'));
    throw err;
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await demo?.stop().catch(swallowed('server.shutdown'));
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** This server's own address, for a client in this process (a wildcard host is reached on loopback). */
function ownUrl(app: { server: { address(): unknown } }): string {
  const a = app.server.address() as { address: string; port: number; family: string } | null;
  if (!a) throw new Error('the server is not listening');
  const wildcard = a.address === '0.0.0.0' || a.address === '::';
  const host = wildcard ? '127.0.0.1' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `http://${host}:${a.port}`;
}

/**
 * V8 lets the old generation grow to this many percent over the live heap of
 * the last full collection before it collects again (its own default picks up
 * to 300 % when the program allocates fast, and the memory is only returned
 * later). Measured on the CSV export of 200,000 calls (docs/crm-integration.md
 * §6): RSS growth 91 MiB with V8's default, 17 MiB with 50, at the same
 * rows/s. The growth was short-lived rows promoted out of the young
 * generation, not retained ones: only the collection's timing changes.
 */
const HEAP_GROWING_PERCENT = 50;

/**
 * Sets V8's heap growing factor for the server process, unless the operator
 * chose one on node's command line (`node --heap-growing-percent=0
 * bin/callcenter.js serve` gives V8's own back; NODE_OPTIONS does not accept
 * this flag). Unlike the young generation's size (`--max-semi-space-size`,
 * read once when the heap is set up), this flag is read at every collection,
 * so setting it at start-up holds.
 */
function boundHeapGrowth(): void {
  if (process.execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
