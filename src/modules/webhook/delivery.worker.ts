import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database } from '../../db/types.js';
import { DeliveryQueueRepository, type ClaimedDelivery } from './delivery-queue.repository.js';
import { nextAttemptAt, verdictOf } from './retry-schedule.js';
import { messageId, sign } from './signature.js';
import type { CallReportService } from '../callreport/callreport.service.js';
import type { WebhookHttp } from './webhook-http.js';
import { WebhookRepository } from './webhook.repository.js';

/** The push report of a finished call (undefined when the call is not in the history): CallReportService. */
export type ReportSource = Pick<CallReportService, 'report'>;

export interface WorkerOptions {
  /** Deliveries claimed (and sent concurrently) at once. */
  batch: number;
  /** How long a claim holds: longer than the 10 s request timeout. */
  leaseMs: number;
  /** Real-time interval between looks at the queue when nothing nudges the worker. */
  pollMs: number;
}

/** An unverified subscription's deliveries wait this long before they are looked at again. */
const UNVERIFIED_WAIT_MS = 60_000;

/**
 * Sends the outbox. Each round claims due deliveries with a lease (one node
 * per attempt), sends them concurrently, logs every attempt and schedules the
 * next one (retry-schedule.ts) by the injectable clock. Nothing is kept in
 * memory between rounds: after a restart or a SIGKILL the pending rows, and
 * leases that ran out, are simply claimed again.
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly http: WebhookHttp,
    private readonly reports: ReportSource,
    private readonly opts: WorkerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Something was queued or made due: look soon (after the writer's commit). */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(5);
  }

  /** Sends every delivery due now; resolves when none is left (tests call it after moving the clock). */
  async runDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const n = await this.round();
      sent += n;
      if (n === 0) return sent;
    }
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.loop(), ms);
    this.timer.unref();
  }

  private async loop(): Promise<void> {
    if (this.running || this.stopped) return;
    this.again = false;
    this.running = this.runDue()
      .then(() => undefined)
      .catch((err: unknown) => this.log.warn({ err }, 'webhook delivery round failed'));
    await this.running;
    this.running = undefined;
    if (!this.stopped) this.schedule(this.again ? 0 : this.opts.pollMs);
  }

  /** One claim and its attempts; answers how many were claimed. */
  private async round(): Promise<number> {
    const now = Math.floor(this.clock.now());
    const token = randomUUID();
    const queue = new DeliveryQueueRepository(tenant(this.db, 0));
    const claimed = await queue.claim(now, now + this.opts.leaseMs, token, this.opts.batch);
    await Promise.all(claimed.map((d) => this.attempt(d, token).catch((err: unknown) => this.log.warn({ err, deliveryId: d.id }, 'webhook attempt failed'))));
    return claimed.length;
  }

  private async attempt(d: ClaimedDelivery, token: string): Promise<void> {
    const t = tenant(this.db, d.account_id);
    const queue = new DeliveryQueueRepository(t);
    const hook = await new WebhookRepository(t).get(d.webhook_id);
    const now = Math.floor(this.clock.now());
    const at = now;
    if (!hook || hook.status !== 'active') {
      if (hook?.status === 'unverified') {
        // Waits, without an attempt, until a verify makes the subscription active again.
        await queue.finish(d.id, token, null, { status: 'pending', attempts: d.attempts, nextAt: now + UNVERIFIED_WAIT_MS });
        return;
      }
      const error = hook ? 'subscription disabled' : 'subscription deleted';
      await queue.finish(d.id, token, { at, httpStatus: null, durationMs: 0, error, response: null }, { status: 'failed', attempts: d.attempts, nextAt: now });
      return;
    }
    let body = d.payload;
    if (body === null) {
      // Built from the call history once, here, off the ingest path; frozen so every retry sends the same body.
      const report = await this.reports.report(null, d.account_id, d.call_id);
      if (report === undefined) {
        const error = 'call not found in the history';
        await queue.finish(
          d.id,
          token,
          { at, httpStatus: null, durationMs: 0, error, response: null },
          { status: 'failed', attempts: d.attempts, nextAt: now },
        );
        return;
      }
      body = JSON.stringify(report);
      await queue.freezePayload(d.id, token, body);
    }
    const msgId = messageId(d.account_id, d.webhook_id, d.call_id);
    const timestamp = Math.floor(this.clock.now() / 1000);
    const out = await this.http.request(
      'POST',
      hook.url,
      {
        'content-type': 'application/json',
        'webhook-id': msgId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': sign(hook.secret, msgId, timestamp, body),
      },
      body,
    );
    const after = Math.floor(this.clock.now());
    const verdict = verdictOf(out.httpStatus, out.retryAfter, after);
    const attempts = d.attempts + 1;
    const nextAt = nextAttemptAt(attempts, after, verdict, Math.random());
    const status = verdict.kind === 'delivered' ? 'delivered' : nextAt === null ? 'failed' : 'pending';
    const error = out.error ?? (verdict.kind === 'delivered' ? null : `HTTP ${out.httpStatus}`);
    await this.db.transaction(async (tx) => {
      const txt = tenant(tx, d.account_id);
      const kept = await new DeliveryQueueRepository(txt).finish(
        d.id,
        token,
        { at, httpStatus: out.httpStatus, durationMs: out.durationMs, error, response: out.response },
        { status, attempts, nextAt: nextAt ?? after },
      );
      if (kept && verdict.kind === 'disable') await new WebhookRepository(txt).setStatus(d.webhook_id, 'disabled', 'HTTP 410: the receiver asked to stop');
    });
  }
}
