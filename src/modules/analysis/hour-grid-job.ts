import type { Clock } from '../../clock.js';
import { tryLock, unlock } from '../../db/locks.js';
import { PeriodicRun } from '../../jobs/periodic-run.js';
import type { Database } from '../../db/types.js';
import type { AccountService } from '../account/account.service.js';
import { DAY } from './answer/grid-reads.js';
import { refreshStoredHours } from './answer/stored-hours.js';
import { AnalysisRepository } from './query/analysis.repository.js';
import { accountsWithRollups, HourGridRepository } from './query/hour-grids.repository.js';
import { DIMS, GHOST_MAX } from './rollup/counters.js';
import { swallowed } from '../../swallowed.js';

export const HOUR_GRID_LOCK = 'analysis-hour-grids';
/** The days kept current: the 35 UTC days before today (a month of hours ending now, with room for zones and the month's length). */
export const HOUR_GRID_DAYS = 35;

export type HourGridRun = { ran: true; accounts: number; summed: number } | { ran: false; reason: 'locked' };

export interface HourGridJobDeps {
  db: Database;
  clock: Clock;
  accounts: Pick<AccountService, 'settings'>;
  log: { error(o: object, msg: string): void };
}

/**
 * Keeps the stored hour grids (answer/stored-hours.ts) of every account's
 * last 35 whole UTC days current, so that a node's first ask of a month of
 * hours after a start reads them instead of summing the hourly roll-up,
 * whoever asked before. Each run sums only the days missing or changed
 * since (yesterday once it has ended, a day a late event touched); today
 * changes with every call and is left to the asks. One node at a time (the
 * lock in the locks table); every `intervalMs` from `start()`, `runOnce()`
 * on demand (tests).
 */
export class HourGridJob {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly accounts: Pick<AccountService, 'settings'>;
  private readonly log: HourGridJobDeps['log'];
  private readonly periodic: PeriodicRun<HourGridRun>;

  constructor({ db, clock, accounts, log }: HourGridJobDeps) {
    this.db = db;
    this.clock = clock;
    this.accounts = accounts;
    this.log = log;
    this.periodic = new PeriodicRun(
      () => this.run(),
      (err) => log.error({ err }, 'stored hour grids: run failed'),
    );
  }

  start(intervalMs: number): void {
    this.periodic.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  runOnce(): Promise<HourGridRun> {
    return this.periodic.runOnce();
  }

  private async run(): Promise<HourGridRun> {
    // The lease outlasts a run: a run sums at most a few days per account.
    const owner = await tryLock(this.db, HOUR_GRID_LOCK, 10 * 60_000, this.clock.now());
    if (!owner) return { ran: false, reason: 'locked' };
    try {
      const today = Math.floor(this.clock.now() / 1000 / DAY);
      const ids = await accountsWithRollups(this.db);
      let summed = 0;
      const [first, last] = [today - HOUR_GRID_DAYS, today - 1];
      for (const accountId of ids) {
        const ghost = (await this.accounts.settings(accountId)).ghostThresholdSecs;
        // Above the roll-ups' ghost columns the account's answers come from the raw calls (answer/path.ts).
        if (ghost > GHOST_MAX) continue;
        // One account's failure is logged; the others are still brought up to date.
        try {
          const repo = new AnalysisRepository(this.db, accountId);
          const hourGrids = new HourGridRepository(this.db, accountId);
          const versions = await repo.versions(first, last);
          for (const dim of DIMS) summed += await refreshStoredHours({ repo, hourGrids, dim, ghost, today }, first, last, versions);
        } catch (err) {
          this.log.error({ err, accountId }, 'stored hour grids: an account failed');
        }
      }
      return { ran: true, accounts: ids.length, summed };
    } finally {
      await unlock(this.db, HOUR_GRID_LOCK, owner).catch(swallowed('lock.release'));
    }
  }
}
