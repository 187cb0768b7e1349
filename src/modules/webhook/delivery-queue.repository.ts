import { dialectOf } from '../../db/dialect.js';
import type { TenantQueries } from '../../db/tenant.js';
import { OUTBOX_COLUMNS, type DeliveryStatus, type OutboxRow } from './webhook.repository.js';

export interface ClaimedDelivery {
  id: number;
  account_id: number;
  webhook_id: number;
  call_id: string;
  attempts: number;
  payload: string | null;
}

/**
 * The outbox as a work queue. Claiming spans every account (one worker
 * serves all tenants), so it goes through `untenanted` with its reason;
 * everything done to a claimed delivery afterwards is scoped to the
 * delivery's account and checked against the lease token, so a node whose
 * lease ran out cannot overwrite the work of the node that took over.
 */
export class DeliveryQueueRepository {
  constructor(private readonly t: TenantQueries) {}

  /**
   * Leases up to `limit` due deliveries to `token` until `leaseUntil`, in
   * one statement. PostgreSQL: the inner SELECT … FOR UPDATE SKIP LOCKED
   * lets concurrent nodes claim disjoint rows; SQLite: one writer at a time.
   */
  async claim(now: number, leaseUntil: number, token: string, limit: number): Promise<ClaimedDelivery[]> {
    const rows = await this.t.untenanted<ClaimedDelivery>(
      'the delivery queue is shared by every account; each claimed row carries its account_id and is handled tenant-scoped',
      `UPDATE webhook_deliveries SET lease_until = $1, lease_token = $2
       WHERE id IN (SELECT id FROM webhook_deliveries
                    WHERE status = 'pending' AND next_at <= $3 AND lease_until <= $3
                    ORDER BY next_at LIMIT $4${dialectOf(this.t).forUpdateSkipLocked})
       RETURNING id, account_id, webhook_id, call_id, attempts, payload`,
      [leaseUntil, token, now, limit],
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), account_id: Number(r.account_id), webhook_id: Number(r.webhook_id), attempts: Number(r.attempts) }));
  }

  /**
   * Whether a round has anything to do, by reads alone: an outbox row to
   * expand, a delivery due and not leased. The idle poll asks this first and
   * opens no write transaction when both are false (on SQLite a write would
   * wait behind any other connection's open transaction, and it costs CPU on
   * idle nodes). Only a hint: the claim itself still decides who gets a row.
   */
  async work(now: number): Promise<{ outbox: boolean; due: boolean }> {
    const rows = await this.t.untenanted<{ outbox: unknown; due: unknown }>(
      'the outbox and the delivery queue are shared by every account; only whether a row exists is read',
      `SELECT EXISTS (SELECT 1 FROM webhook_outbox) AS outbox,
              EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_at <= $1 AND lease_until <= $1) AS due`,
      [now],
    );
    const r = rows[0];
    // PostgreSQL answers booleans, SQLite 0 / 1.
    return { outbox: r?.outbox === true || r?.outbox === 1, due: r?.due === true || r?.due === 1 };
  }

  /**
   * Up to `limit` outbox rows of any account, oldest first, locked for this
   * transaction (PostgreSQL: rows another node is expanding are skipped).
   */
  async outbox(limit: number): Promise<Array<OutboxRow & { account_id: number }>> {
    const rows = await this.t.untenanted<OutboxRow & { account_id: number }>(
      'the outbox is shared by every account; each row is expanded tenant-scoped by its account_id',
      `SELECT ${OUTBOX_COLUMNS} FROM webhook_outbox ORDER BY id LIMIT $1${dialectOf(this.t).forUpdateSkipLocked}`,
      [limit],
    );
    return rows.map((r) => ({ ...r, account_id: Number(r.account_id) }));
  }

  /** The earliest `next_at` of a pending delivery (to sleep until it), or null. */
  async nextDue(): Promise<number | null> {
    const rows = await this.t.untenanted<{ next_at: number | null }>(
      'the delivery queue is shared by every account; only a time is read',
      `SELECT MIN(next_at) AS next_at FROM webhook_deliveries WHERE status = 'pending'`,
    );
    const v = rows[0]?.next_at;
    return v === null || v === undefined ? null : Number(v);
  }

  /** Freezes the report sent on every attempt of this delivery. */
  async freezePayload(id: number, token: string, payload: string): Promise<void> {
    await this.t.run('UPDATE webhook_deliveries SET payload = $2 WHERE account_id = $1 AND id = $3 AND lease_token = $4 AND payload IS NULL', [
      payload,
      id,
      token,
    ]);
  }

  /**
   * Logs the attempt and moves the delivery on (pending with `nextAt`,
   * delivered or failed), releasing the lease; false when the lease was lost.
   */
  async finish(
    id: number,
    token: string,
    /** null: no attempt was made (the delivery only waits). */
    attempt: { at: number; httpStatus: number | null; durationMs: number; error: string | null; response: string | null } | null,
    next: { status: DeliveryStatus; attempts: number; nextAt: number },
  ): Promise<boolean> {
    const res = await this.t.run(
      `UPDATE webhook_deliveries SET status = $2, attempts = $3, next_at = $4, lease_until = 0, lease_token = NULL
       WHERE account_id = $1 AND id = $5 AND lease_token = $6`,
      [next.status, next.attempts, next.nextAt, id, token],
    );
    if (res.changes !== 1) return false;
    if (attempt === null) return true;
    await this.t.run(
      `INSERT INTO webhook_attempts (account_id, delivery_id, n, at, http_status, duration_ms, error, response)
       SELECT CAST($1 AS BIGINT), CAST($2 AS BIGINT), COALESCE(MAX(n), 0) + 1, CAST($3 AS BIGINT), CAST($4 AS INTEGER), CAST($5 AS INTEGER),
              CAST($6 AS TEXT), CAST($7 AS TEXT) FROM webhook_attempts WHERE account_id = $1 AND delivery_id = $2`,
      [id, attempt.at, attempt.httpStatus, attempt.durationMs, attempt.error, attempt.response],
    );
    return true;
  }
}
