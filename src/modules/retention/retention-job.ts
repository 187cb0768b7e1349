import { unlink } from 'node:fs/promises';
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import type { Clock } from '../../clock.js';
import { renewLock, tryLock, unlock } from '../../db/locks.js';
import { PeriodicRun } from '../../jobs/periodic-run.js';
import type { Database } from '../../db/types.js';
import type { AccountService } from '../account/account.service.js';
import { findRecording } from '../callreport/recording-files.js';
import { purgers, type AuditPurge, type BatchRunner, type Purger, type RetentionCounts } from './purgers.js';
import { swallowed } from '../../swallowed.js';

const DAY = 86_400;
export const RETENTION_LOCK = 'retention';

/** The few log calls the job makes (the app's logger, or `console` in the CLI). */
export interface JobLog {
  info(o: object, msg: string): void;
  warn(msg: string): void;
  error(o: object, msg: string): void;
}

export interface RetentionOptions {
  recordingsDir: string;
  log: JobLog;
  /** The audit trail's purge (the audit module's purgeAuditBefore), or null. */
  audit: AuditPurge | null;
  /** Rows per batch (one short transaction each). */
  batchSize?: number;
  /** Pause between batches, ms (0: just yield to what is waiting). */
  pauseMs?: number;
  /** The lease on the job's lock; renewed after every batch, so a crashed node's lease lapses this long after it died. */
  leaseMs?: number;
}

export interface RetentionJobDeps extends RetentionOptions {
  db: Database;
  clock: Clock;
  accounts: Pick<AccountService, 'withRetention'>;
}

export type RetentionRun = ({ ran: true; batches: number } & RetentionCounts) | { ran: false; reason: 'locked' };

class LeaseLost extends Error {}

const zero = (): RetentionCounts => ({ calls: 0, hits: 0, recordings: 0, originated: 0, agentStates: 0, campaignDials: 0, audit: 0 });

/**
 * The retention job (PRODUCT.md §12): for each account with a `retention`
 * setting, removes what is older than its horizons, batch by batch. One
 * node at a time: the run holds the `retention` lock in the locks table
 * (db/locks.ts), renewing its lease as it goes; a node that finds it held
 * skips the run. Hourly from `start()`; `runOnce()` on demand (CLI
 * `callcenter retention run`, tests).
 */
export class RetentionJob {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly accounts: Pick<AccountService, 'withRetention'>;
  private readonly opts: RetentionOptions;
  private readonly purgers: Purger[];
  private readonly batchSize: number;
  private readonly pauseMs: number;
  private readonly leaseMs: number;
  private readonly periodic: PeriodicRun<RetentionRun>;

  constructor(deps: RetentionJobDeps) {
    const { db, clock, accounts, ...opts } = deps;
    this.db = db;
    this.clock = clock;
    this.accounts = accounts;
    this.opts = opts;
    this.purgers = purgers(opts.audit);
    this.batchSize = opts.batchSize ?? 500;
    this.pauseMs = opts.pauseMs ?? 0;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.periodic = new PeriodicRun(
      () => this.run(),
      (err) => opts.log.error({ err }, 'retention run failed'),
    );
  }

  /** Runs every `intervalMs` (the first run one interval after the start) until stop(). */
  start(intervalMs: number, firstMs = intervalMs): void {
    this.periodic.start(intervalMs, firstMs);
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One run now (joins a run of this process already under way). */
  runOnce(): Promise<RetentionRun> {
    return this.periodic.runOnce();
  }

  private async run(): Promise<RetentionRun> {
    const accounts = await this.accounts.withRetention();
    // Nothing to keep short: no lock taken, nothing written.
    if (accounts.length === 0) return { ran: true, batches: 0, ...zero() };
    const owner = await tryLock(this.db, RETENTION_LOCK, this.leaseMs, this.clock.now());
    if (!owner) return { ran: false, reason: 'locked' };
    const counts = zero();
    let batches = 0;
    const runner: BatchRunner = async (batch) => {
      const out = await this.db.transaction(batch);
      batches += 1;
      for (const [k, v] of Object.entries(out.counts ?? {}) as Array<[keyof RetentionCounts, number]>) counts[k] += v;
      for (const f of out.files ?? []) await this.deleteFile(f);
      if (!(await renewLock(this.db, RETENTION_LOCK, owner, this.leaseMs, this.clock.now()))) throw new LeaseLost();
      if (this.pauseMs > 0) await new Promise((r) => setTimeout(r, this.pauseMs));
      else await yieldToOthers();
      return out;
    };
    try {
      const nowSec = this.clock.now() / 1000;
      for (const account of accounts) {
        for (const p of this.purgers) {
          const days = account.retention[p.horizon];
          if (days === null) continue;
          await p.purge(account.id, nowSec - days * DAY, runner, this.batchSize);
        }
      }
    } catch (err) {
      // Another node took the lapsed lease over: it carries on from where this one stopped.
      if (err instanceof LeaseLost) this.opts.log.warn('retention: the lease was lost; another node carries on');
      else throw err;
    } finally {
      await unlock(this.db, RETENTION_LOCK, owner).catch(swallowed('lock.release'));
    }
    const run = { ran: true as const, batches, ...counts };
    if (batches > 0) this.opts.log.info({ retention: run }, 'retention run');
    return run;
  }

  private async deleteFile(relative: string): Promise<void> {
    const found = await findRecording(this.opts.recordingsDir, relative);
    if (!found) return;
    await unlink(found.file).catch((err: unknown) => this.opts.log.error({ err, file: found.file }, 'retention: a recording file could not be deleted'));
  }
}
