import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database } from '../../db/types.js';
import { pruneWindowCounts, WINDOW_COUNTS_KEPT_SECS } from './abandon-window.repository.js';
import { CampaignLeaseRepository } from './campaign.repository.js';
import type { Dialer } from './dialer.js';
import { swallowed } from '../../swallowed.js';

export interface DialerWorkerOptions {
  /** Real-time interval between ticks (at least once a second, PRODUCT.md §13). */
  tickMs: number;
  /** How long a lease holds without renewal: another node takes a campaign over this long after its node died. */
  leaseMs: number;
}

const PRUNE_EVERY_MS = 3_600_000;

export const DEFAULT_DIALER_OPTIONS: DialerWorkerOptions = { tickMs: 1000, leaseMs: 15_000 };

/** The options left out take DEFAULT_DIALER_OPTIONS. */
export interface DialerWorkerDeps extends Partial<DialerWorkerOptions> {
  db: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  dialer: Dialer;
}

/**
 * Runs the dialer: every tick it takes the lease of every running campaign
 * that is free or expired and renews its own once a third of them has
 * passed (`campaigns.lease_owner`, like the webhook worker's claims), then dials
 * each held campaign once. A dial checks the lease again in its own
 * transaction, so a node that lost it mid-tick (paused, partitioned) places
 * nothing more. Nothing is kept in memory between ticks: after a crash the
 * lease runs out and another node (or this one restarted) goes on from the
 * database, where every dial was recorded before its command left.
 */
export class DialerWorker {
  /** This node's lease owner id. */
  readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;
  /** When this node last pruned the abandon-window counters (clock ms; 0: not yet, so the first tick does). */
  private prunedAt = 0;

  private readonly db: Database;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly dialer: Dialer;
  private readonly opts: DialerWorkerOptions;

  constructor({ db, clock, log, dialer, tickMs, leaseMs }: DialerWorkerDeps) {
    this.db = db;
    this.clock = clock;
    this.log = log;
    this.dialer = dialer;
    this.opts = { tickMs: tickMs ?? DEFAULT_DIALER_OPTIONS.tickMs, leaseMs: leaseMs ?? DEFAULT_DIALER_OPTIONS.leaseMs };
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops ticking and gives up this node's leases, so another node takes its campaigns at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await new CampaignLeaseRepository(tenant(this.db, 0)).release(this.owner).catch(swallowed('lock.release'));
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((err: unknown) => this.log.warn({ err }, 'dialer tick failed'))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule();
        });
    }, this.opts.tickMs);
    this.timer.unref();
  }

  /** One tick: claims leases, dials each held campaign; answers the campaigns it held (tests call it after moving the clock). */
  async tick(): Promise<Array<{ accountId: number; campaignId: number }>> {
    const now = this.clock.now();
    const leases = new CampaignLeaseRepository(tenant(this.db, 0));
    // A lease is renewed once a third of it has passed (CampaignLeaseRepository.claim): at least two thirds are left at every dial.
    const held = await leases.claim(this.owner, now, now + this.opts.leaseMs, now + Math.floor((this.opts.leaseMs * 2) / 3));
    // The campaigns of one account tick together: what they decide from is read once per account (Dialer.tickAccount).
    const byAccount = new Map<number, number[]>();
    for (const { account_id: accountId, campaign_id: campaignId } of held) byAccount.set(accountId, [...(byAccount.get(accountId) ?? []), campaignId]);
    for (const [accountId, campaignIds] of byAccount) {
      try {
        await this.dialer.tickAccount(accountId, campaignIds, this.owner, (campaignId, err) =>
          this.log.warn({ err, accountId, campaignId }, 'dialer tick of a campaign failed'),
        );
      } catch (err) {
        this.log.warn({ err, accountId }, 'dialer tick of an account failed');
      }
    }
    await this.pruneHourly(now);
    return held.map((h) => ({ accountId: h.account_id, campaignId: h.campaign_id }));
  }

  /** Once an hour on each node, the abandon-window counters no window can read any more (idempotent across nodes). */
  private async pruneHourly(now: number): Promise<void> {
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    try {
      await pruneWindowCounts(tenant(this.db, 0), Math.floor(now / 1000) - WINDOW_COUNTS_KEPT_SECS);
    } catch (err) {
      this.log.warn({ err }, 'dialer: pruning the abandon-window counters failed');
    }
  }
}
