import { buildApp } from '../app.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { demoCredentials, seedDemo } from '../demo/seed.js';

/** `callcenter seed --demo`: the demo tenant (idempotent), on the database of DATA_DIR / DATABASE_URL. */
export async function seedDemoCommand(_argv: string[], config: Config): Promise<number> {
  const db = openDatabase(config);
  try {
    await migrate(db);
    const { app, services } = await buildApp({ config: { ...config, logLevel: 'warn' }, db, logToStderr: true });
    try {
      const creds = demoCredentials();
      const report = await seedDemo(app, services.accounts, systemClock, creds);
      console.log(
        JSON.stringify({
          username: creds.username,
          userId: String(report.accountId),
          createdAccount: report.createdAccount,
          created: report.created,
          skipped: report.skipped,
        }),
      );
      return report.skipped.length ? 1 : 0;
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}
