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
       WHERE (account_id, id) IN (SELECT account_id, id FROM webhook_deliveries
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

  /** Freezes the report sent on every attempt of these deliveries (this account's, still leased to `token`): one statement. */
  async freezePayloads(token: string, items: ReadonlyArray<{ id: number; payload: string }>): Promise<void> {
    if (items.length === 0) return;
    await this.t.run(
      `UPDATE webhook_deliveries AS d SET payload = j.payload FROM ${jsonRows(this.t, 2, [
        ['id', 'bigint'],
        ['payload', 'text'],
      ])}
       WHERE ${byId(this.t)} = $1 AND d.id = j.id AND d.lease_token = $3 AND d.payload IS NULL`,
      [JSON.stringify(items), token],
    );
  }

  /**
   * Logs the attempts and moves these deliveries on (pending with `nextAt`,
   * delivered or failed), releasing their leases, in two statements whatever
   * their number; answers the ids whose lease was still `token`'s (only
   * those are moved and logged).
   */
  async finishAll(token: string, items: readonly Finished[]): Promise<Set<number>> {
    if (items.length === 0) return new Set();
    const moved = await this.t.all<{ id: number }>(
      `UPDATE webhook_deliveries AS d SET status = j.status, attempts = j.attempts, next_at = j.next_at, lease_until = 0, lease_token = NULL
       FROM ${jsonRows(this.t, 2, [
         ['delivery_id', 'bigint'],
         ['status', 'text'],
         ['attempts', 'integer'],
         ['next_at', 'bigint'],
       ])}
       WHERE ${byId(this.t)} = $1 AND d.id = j.delivery_id AND d.lease_token = $3
       RETURNING id`,
      [JSON.stringify(items.map((f) => ({ delivery_id: f.id, status: f.next.status, attempts: f.next.attempts, next_at: f.next.nextAt }))), token],
    );
    const kept = new Set(moved.map((r) => Number(r.id)));
    const attempts = items.filter((f) => f.attempt !== null && kept.has(f.id));
    if (attempts.length === 0) return kept;
    // n: after the delivery's earlier attempts (one finish per delivery and lease, so no two rows here share an id).
    await this.t.run(
      `INSERT INTO webhook_attempts (account_id, delivery_id, n, at, http_status, duration_ms, error, response)
       SELECT CAST($1 AS BIGINT), j.id,
              COALESCE((SELECT MAX(a.n) FROM webhook_attempts a WHERE a.account_id = $1 AND a.delivery_id = j.id), 0) + 1,
              j.at, j.http_status, j.duration_ms, j.error, j.response
       FROM ${jsonRows(this.t, 2, [
         ['id', 'bigint'],
         ['at', 'bigint'],
         ['http_status', 'integer'],
         ['duration_ms', 'integer'],
         ['error', 'text'],
         ['response', 'text'],
       ])}`,
      [
        JSON.stringify(
          attempts.map(({ id, attempt: a }) => ({
            id,
            at: a!.at,
            http_status: a!.httpStatus,
            duration_ms: a!.durationMs,
            error: a!.error,
            response: a!.response,
          })),
        ),
      ],
    );
    return kept;
  }
}

/** A delivery a round is done with: its attempt (null: none was made, it only waits) and what comes next. */
export interface Finished {
  id: number;
  attempt: { at: number; httpStatus: number | null; durationMs: number; error: string | null; response: string | null } | null;
  next: { status: DeliveryStatus; attempts: number; nextAt: number };
}

/**
 * `d.account_id` as the UPDATEs above compare it. SQLite: `+d.account_id`, so
 * its planner does not pick the (account_id, id) index and then scan the JSON
 * array for every delivery of the account (quadratic: the first version cost
 * twice the CPU per delivery); with it, the array is the outer loop and each
 * delivery one rowid lookup. PostgreSQL plans the join itself.
 */
function byId(t: TenantQueries): string {
  return dialectOf(t).name === 'postgres' ? 'd.account_id' : '+d.account_id';
}

/** A JSON array parameter as a table `j` (DialectOps.jsonRows): one statement for a whole round instead of one per delivery. */
function jsonRows(t: TenantQueries, n: number, columns: ReadonlyArray<readonly [string, 'bigint' | 'integer' | 'text']>): string {
  return dialectOf(t).jsonRows(n, 'j', columns);
}
