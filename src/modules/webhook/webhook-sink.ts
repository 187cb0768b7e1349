import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import type { CallRecordSink } from '../calls/call-record-sink.js';
import type { CallRecord } from '../calls/call-record.js';
import { matchesFilter, parseFilter } from './webhook-filter.js';
import { WebhookRepository } from './webhook.repository.js';

/** Which of these calls' reports wait for a disposition. */
export type HeldReports = (tx: Queryable, accountId: number, callIds: readonly string[]) => Promise<Set<string>>;

export interface WebhookSinkDeps {
  clock: Clock;
  /** Told after rows were queued (the worker looks for due deliveries soon after). */
  onQueued: () => void;
  held?: { hold: HeldReports; holdMs: number };
}

/**
 * The outbox writer: called by the call history in the transaction that
 * applies `call.ended`, it queues one delivery per ended call and active,
 * matching subscription, so an acknowledged ingest is reported even if the
 * process dies right after. Only one outbox row per subscription and
 * transaction is written (the call ids; the worker expands it into
 * deliveries): the report itself is built at the first attempt, off the
 * ingest path.
 * A late correction (sign -1 then +1 for the same call, in one transaction)
 * queues nothing: the call was reported (or not) when it ended, and a
 * subscription that became active since must not receive it.
 */
export class WebhookSink implements CallRecordSink {
  /** Per transaction: the calls that left the history in it (the old versions of late corrections). */
  private readonly corrected = new WeakMap<Queryable, Set<string>>();

  private readonly clock: Clock;
  /** Told after rows were queued (the worker looks for due deliveries soon after). */
  private readonly onQueued: () => void;
  /**
   * Calls whose report waits (a campaign call answered by an agent, until its
   * disposition: PRODUCT.md §13): queued due `holdMs` later, made due earlier
   * by `WebhookService.release`.
   */
  private readonly hold: HeldReports | null;
  private readonly holdMs: number;

  constructor(deps: WebhookSinkDeps) {
    this.clock = deps.clock;
    this.onQueued = deps.onQueued;
    this.hold = deps.held?.hold ?? null;
    this.holdMs = deps.held?.holdMs ?? 0;
  }

  async apply(tx: Queryable, accountId: number, records: readonly CallRecord[], sign: 1 | -1): Promise<void> {
    if (sign === -1) {
      const set = this.corrected.get(tx) ?? new Set<string>();
      for (const r of records) set.add(r.callId);
      this.corrected.set(tx, set);
      return;
    }
    const corrected = this.corrected.get(tx);
    if (corrected) records = records.filter((r) => !corrected.has(r.callId));
    if (records.length === 0) return;
    const repo = new WebhookRepository(tenant(tx, accountId));
    const subs = await repo.active();
    if (subs.length === 0) return;
    const now = Math.floor(this.clock.now());
    const held = this.hold
      ? await this.hold(
          tx,
          accountId,
          records.map((r) => r.callId),
        )
      : new Set<string>();
    let queued = false;
    for (const s of subs) {
      const filter = parseFilter(s.filter);
      const callIds: string[] = [];
      const later: string[] = [];
      for (const r of records) if (matchesFilter(filter, r)) (held.has(r.callId) ? later : callIds).push(r.callId);
      if (later.length > 0) await repo.enqueue(Number(s.id), later, now + this.holdMs);
      if (callIds.length === 0) continue;
      await repo.enqueue(Number(s.id), callIds, now);
      queued = true;
    }
    if (queued) this.onQueued();
  }
}
