import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { AccountService } from '../modules/account/account.service.js';
import { purgeAuditBefore } from '../modules/audit/audit.service.js';
import { RetentionJob } from '../modules/retention/retention-job.js';
import { parseArgs } from './args.js';

/**
 * `callcenter retention run`: one run of the retention job now, under the
 * same lock as the servers' hourly runs (exit 3 when another node holds it).
 * Prints what it removed as JSON.
 */
export async function retentionCommand(argv: string[], config: Config): Promise<number> {
  const { positional } = parseArgs(argv);
  if (positional[0] !== 'run') {
    console.error('usage: callcenter retention run');
    return 2;
  }
  const db = openDatabase(config);
  try {
    await migrate(db);
    const job = new RetentionJob({
      db,
      clock: systemClock,
      accounts: new AccountService({ db, clock: systemClock }),
      recordingsDir: config.recordingsDir,
      // Progress and failures to stderr; stdout carries the one JSON line.
      log: { info: () => undefined, warn: (m) => console.error(m), error: (o, m) => console.error(m, o) },
      audit: purgeAuditBefore,
      batchSize: config.retentionBatch,
      pauseMs: config.retentionPauseMs,
    });
    const out = await job.runOnce();
    console.log(JSON.stringify(out));
    return out.ran ? 0 : 3;
  } finally {
    await db.close();
  }
}
