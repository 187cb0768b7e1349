import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database } from '../../db/types.js';
import type { CallReportService } from '../callreport/callreport.service.js';
import { DeliveryQueueRepository, type ClaimedDelivery } from './delivery-queue.repository.js';
import { attemptDelivery, type Outcome } from './delivery-attempt.js';
import type { WebhookHttp } from './webhook-http.js';
import { WebhookRepository, type WebhookRow } from './webhook.repository.js';

/** The push reports of finished calls (unknown calls left out): CallReportService. */
export type ReportSource = Pick<CallReportService, 'reports'>;

export interface DeliveryWorkerDeps extends WorkerOptions {
  db: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  http: WebhookHttp;
  /** Builds the push reports of first attempts (the call-report service). */
  reports: ReportSource;
}

export interface WorkerOptions {
  /** Deliveries claimed (and sent concurrently) at once. */
  batch: number;
  /** How long a claim holds: longer than the 10 s request timeout. */
  leaseMs: number;
  /** Real-time interval between looks at the queue when nothing nudges the worker. */
  pollMs: number;
}

/** Outbox rows (one per ingest batch and subscription) expanded into deliveries per round. */
const OUTBOX_ROWS_PER_ROUND = 20;
/** An unverified subscription's deliveries wait this long before they are looked at again. */
const UNVERIFIED_WAIT_MS = 60_000;
/** After a nudge, wait this long so one round takes the deliveries of several ingest batches. */
const NUDGE_DELAY_MS = 20;
/** Ingest counts as busy while it queued deliveries this recently. */
const INGEST_BUSY_MS = 250;
/**
 * While ingest is busy the worker rests this many times as long as its last
 * round took (≈ 1/(1+4) of the process's time at most): acknowledging the
 * switch's events comes first, the outbox is durable and catches up as soon
 * as ingest quietens (PRODUCT.md §9: ingest keeps ≥ 0.9 × its rate).
 */
const YIELD_FACTOR = 4;
/**
 * Claimed rounds sending at once while ingest is quiet (each holds `batch`
 * leases): the next batch is claimed and built while earlier ones wait for
 * their answers, so the database work and the network overlap.
 */
const ROUNDS_IN_FLIGHT = 2;

/** A claimed batch: its lease token, what was decided without a request, and the requests to make. */
interface Round {
  token: string;
  claimed: number;
  outcomes: Outcome[];
  sends: Array<{ d: ClaimedDelivery; hook: WebhookRow; body: string }>;
}

/**
 * Sends the outbox. Each round claims due deliveries with a lease (one node
 * per attempt), builds the reports of first attempts per account in one go
 * and freezes them (every retry sends the same body), sends concurrently,
 * then logs every attempt and schedules the next one (retry-schedule.ts) by
 * the injectable clock — one transaction before the sends and one after,
 * whatever the batch size. Nothing is kept in memory between rounds: after
 * a restart or a SIGKILL the pending rows, and leases that ran out, are
 * simply claimed again.
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  /** A claim (expand, claim, build, freeze) under way: one at a time per node. */
  private claiming: Promise<unknown> | undefined;
  /** Claimed rounds whose requests are out (at most ROUNDS_IN_FLIGHT). */
  private readonly inFlight = new Set<Promise<void>>();
  /** The loop stopped claiming because ROUNDS_IN_FLIGHT were out: the next one to finish starts it again. */
  private waitingForSlot = false;
  private again = false;
  private stopped = true;
  /** The timer is the idle poll (a nudge may bring it forward), not a rest between rounds. */
  private idle = false;
  private lastNudge = -Infinity;

  private readonly db: Database;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly http: WebhookHttp;
  private readonly reports: ReportSource;
  private readonly opts: WorkerOptions;

  constructor(deps: DeliveryWorkerDeps) {
    const { db, clock, log, http, reports, ...opts } = deps;
    this.db = db;
    this.clock = clock;
    this.log = log;
    this.http = http;
    this.reports = reports;
    this.opts = opts;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.claiming;
    await Promise.all([...this.inFlight]);
  }

  /** Something was queued or made due: look soon (after the writer's commit). */
  nudge(): void {
    if (this.stopped) return;
    this.lastNudge = performance.now();
    if (this.claiming || this.inFlight.size > 0) this.again = true;
    else if (this.idle) this.schedule(NUDGE_DELAY_MS);
  }

  /** Sends every delivery due now; resolves when none is left (tests call it after moving the clock). */
  async runDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const round = await this.claim();
      if (round === null) return sent;
      await this.complete(round);
      sent += round.claimed;
    }
  }

  private schedule(ms: number, idle = false): void {
    this.idle = idle;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.loop(), ms);
    this.timer.unref();
  }

  /**
   * Claims rounds one after another and lets up to ROUNDS_IN_FLIGHT of them
   * send at once: the next batch is claimed, built and frozen while the
   * previous ones wait for their receivers (a round's own requests finish at
   * the pace of its slowest receiver). While ingest is busy: one round at a
   * time and a rest after it. Nothing claimed: the idle poll.
   */
  private async loop(): Promise<void> {
    if (this.claiming || this.stopped) return;
    this.again = false;
    this.waitingForSlot = false;
    const started = performance.now();
    const claiming = this.claim().catch((err: unknown) => void this.log.warn({ err }, 'webhook delivery claim failed'));
    this.claiming = claiming;
    const round = await claiming;
    this.claiming = undefined;
    if (!round) {
      if (this.stopped) return;
      if (this.again) this.schedule(NUDGE_DELAY_MS);
      // Rounds still out look again when they finish (a delivery they retry is due seconds later at the earliest).
      else this.schedule(this.opts.pollMs, true);
      return;
    }
    const sending = this.complete(round)
      .catch((err: unknown) => this.log.warn({ err }, 'webhook delivery round failed'))
      .finally(() => {
        this.inFlight.delete(sending);
        if (this.waitingForSlot && !this.stopped) this.schedule(0);
      });
    this.inFlight.add(sending);
    if (this.stopped) return;
    if (performance.now() - this.lastNudge < INGEST_BUSY_MS) {
      await sending;
      if (!this.stopped) this.schedule((performance.now() - started) * YIELD_FACTOR);
    } else if (this.inFlight.size < ROUNDS_IN_FLIGHT) this.schedule(0);
    else this.waitingForSlot = true;
  }

  /**
   * Expands the outbox and claims due deliveries (reads first: an idle poll
   * writes nothing), builds the reports of first attempts per account and
   * freezes them; null when nothing was claimed.
   */
  private async claim(): Promise<Round | null> {
    const queue = new DeliveryQueueRepository(tenant(this.db, 0));
    // Reads first: the idle poll (most of them) writes nothing and opens no transaction.
    const work = await queue.work(Math.floor(this.clock.now()));
    if (!work.outbox && !work.due) return null;
    if (work.outbox) await this.expandOutbox();
    const now = Math.floor(this.clock.now());
    const token = randomUUID();
    const claimed = await queue.claim(now, now + this.opts.leaseMs, token, this.opts.batch);
    if (claimed.length === 0) return null;
    const byAccount = byAccountOf(claimed.map((d) => ({ d })));
    const outcomes: Outcome[] = [];
    const sends: Array<{ d: ClaimedDelivery; hook: WebhookRow; body: string }> = [];
    const frozen: Array<{ d: ClaimedDelivery; body: string }> = [];
    for (const [accountId, entries] of byAccount) {
      const list = entries.map((e) => e.d);
      const hooks = await new WebhookRepository(tenant(this.db, accountId)).byIds([...new Set(list.map((d) => d.webhook_id))]);
      const fresh = list.filter((d) => d.payload === null && hooks.get(d.webhook_id)?.status === 'active');
      // Built from the call history here, off the ingest path, once per delivery.
      const built = new Map((await this.reports.reports(null, accountId, [...new Set(fresh.map((d) => d.call_id))])).map((r) => [r.callId, JSON.stringify(r)]));
      for (const d of list) {
        const hook = hooks.get(d.webhook_id);
        const fail = (error: string) =>
          outcomes.push({
            d,
            attempt: { at: now, httpStatus: null, durationMs: 0, error, response: null },
            next: { status: 'failed', attempts: d.attempts, nextAt: now },
          });
        if (!hook) fail('subscription deleted');
        else if (hook.status === 'disabled') fail('subscription disabled');
        else if (hook.status === 'unverified')
          // Waits, without an attempt, until a verify makes the subscription active again.
          outcomes.push({ d, attempt: null, next: { status: 'pending', attempts: d.attempts, nextAt: now + UNVERIFIED_WAIT_MS } });
        else {
          const body = d.payload ?? built.get(d.call_id);
          if (body === undefined) fail('call not found in the history');
          else {
            if (d.payload === null) frozen.push({ d, body });
            sends.push({ d, hook, body });
          }
        }
      }
    }
    if (frozen.length > 0) {
      await this.db.transaction(async (tx) => {
        for (const [accountId, list] of byAccountOf(frozen))
          await new DeliveryQueueRepository(tenant(tx, accountId)).freezePayloads(
            token,
            list.map(({ d, body }) => ({ id: d.id, payload: body })),
          );
      });
    }
    return { token, claimed: claimed.length, outcomes, sends };
  }

  /** Sends a claimed round's requests, then logs every attempt and schedules the next (one transaction). */
  private async complete({ token, outcomes, sends }: Round): Promise<void> {
    outcomes.push(...(await Promise.all(sends.map((s) => attemptDelivery(this.http, this.clock, s.d, s.hook, s.body)))));
    await this.db.transaction(async (tx) => {
      for (const [accountId, list] of byAccountOf(outcomes)) {
        const t = tenant(tx, accountId);
        const kept = await new DeliveryQueueRepository(t).finishAll(
          token,
          list.map((o) => ({ id: o.d.id, attempt: o.attempt, next: o.next })),
        );
        for (const webhookId of new Set(list.filter((o) => o.disable && kept.has(o.d.id)).map((o) => o.d.webhook_id)))
          await new WebhookRepository(t).setStatus(webhookId, 'disabled', 'HTTP 410: the receiver asked to stop');
      }
    });
  }

  /** Moves what ingest queued (webhook_outbox, one row per batch) into delivery rows, in one transaction. */
  private async expandOutbox(): Promise<void> {
    await this.db.transaction(async (tx) => {
      const rows = await new DeliveryQueueRepository(tenant(tx, 0)).outbox(OUTBOX_ROWS_PER_ROUND);
      for (const r of rows) await new WebhookRepository(tenant(tx, r.account_id)).expand([r]);
    });
  }
}

/** Items grouped by their delivery's account (every statement after the claim is tenant-scoped). */
function byAccountOf<T extends { d: ClaimedDelivery }>(items: readonly T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const item of items) {
    const list = out.get(item.d.account_id);
    if (list) list.push(item);
    else out.set(item.d.account_id, [item]);
  }
  return out;
}
