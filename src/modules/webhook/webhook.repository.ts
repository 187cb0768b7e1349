import { dialectOf } from '../../db/dialect.js';
import type { TenantQueries } from '../../db/tenant.js';

export type WebhookStatus = 'active' | 'unverified' | 'disabled';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookRow {
  id: number;
  url: string;
  name: string;
  filter: string;
  secret: string;
  status: WebhookStatus;
  last_error: string | null;
}

export interface DeliveryRow {
  id: number;
  webhook_id: number;
  call_id: string;
  status: DeliveryStatus;
}

export interface AttemptRow {
  delivery_id: number;
  n: number;
  at: number;
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  response: string | null;
}

const WEBHOOK_COLUMNS = 'id, url, name, filter, secret, status, last_error';

export interface OutboxRow {
  id: number;
  webhook_id: number;
  call_ids: string;
  created_at: number;
}

export const OUTBOX_COLUMNS = 'id, account_id, webhook_id, call_ids, created_at';

/** The `webhooks`, `webhook_deliveries` and `webhook_attempts` tables of one account (migration 050). */
export class WebhookRepository {
  constructor(private readonly t: TenantQueries) {}

  async insert(w: {
    url: string;
    name: string;
    filter: string;
    secret: string;
    status: WebhookStatus;
    lastError: string | null;
    now: number;
  }): Promise<number> {
    const row = await this.t.get<{ id: number }>(
      `INSERT INTO webhooks (account_id, url, name, filter, secret, status, last_error, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [w.url, w.name, w.filter, w.secret, w.status, w.lastError, w.now],
    );
    return Number(row!.id);
  }

  async get(id: number): Promise<WebhookRow | undefined> {
    const r = await this.t.get<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1 AND id = $2`, [id]);
    return r && { ...r, id: Number(r.id) };
  }

  async byIds(ids: number[]): Promise<Map<number, WebhookRow>> {
    if (ids.length === 0) return new Map();
    const { sql, param } = dialectOf(this.t).inList('id', 2, ids);
    const rows = await this.t.all<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1 AND ${sql}`, [param]);
    return new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id) }]));
  }

  async list(): Promise<WebhookRow[]> {
    const rows = await this.t.all<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1 ORDER BY id`);
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  }

  /** The subscriptions a call ending now is reported to (the ingest transaction reads them). */
  active(): Promise<Array<{ id: number; filter: string }>> {
    return this.t.all(`SELECT id, filter FROM webhooks WHERE account_id = $1 AND status = 'active'`);
  }

  async update(id: number, w: { url: string; name: string; filter: string; status: WebhookStatus; lastError: string | null }): Promise<void> {
    await this.t.run('UPDATE webhooks SET url = $2, name = $3, filter = $4, status = $5, last_error = $6 WHERE account_id = $1 AND id = $7', [
      w.url,
      w.name,
      w.filter,
      w.status,
      w.lastError,
      id,
    ]);
  }

  async setStatus(id: number, status: WebhookStatus, lastError: string | null): Promise<void> {
    await this.t.run('UPDATE webhooks SET status = $2, last_error = $3 WHERE account_id = $1 AND id = $4', [status, lastError, id]);
  }

  /** Deletes the subscription with its deliveries and their log; false when there was none. */
  async delete(id: number): Promise<boolean> {
    await this.t.run(
      'DELETE FROM webhook_attempts WHERE account_id = $1 AND delivery_id IN (SELECT id FROM webhook_deliveries WHERE account_id = $1 AND webhook_id = $2)',
      [id],
    );
    await this.t.run('DELETE FROM webhook_deliveries WHERE account_id = $1 AND webhook_id = $2', [id]);
    await this.t.run('DELETE FROM webhook_outbox WHERE account_id = $1 AND webhook_id = $2', [id]);
    return (await this.t.run('DELETE FROM webhooks WHERE account_id = $1 AND id = $2', [id])).changes === 1;
  }

  /**
   * Queues the ended calls for a subscription, due at `now`: on the ingest
   * path, one outbox row per subscription and transaction, the call ids as a
   * JSON array (migration 120). `expand` turns it into delivery rows later.
   */
  async enqueue(webhookId: number, callIds: readonly string[], now: number): Promise<void> {
    await this.t.run('INSERT INTO webhook_outbox (account_id, webhook_id, call_ids, created_at) VALUES ($1, $2, $3, $4)', [
      webhookId,
      JSON.stringify(callIds),
      now,
    ]);
  }

  /**
   * Moves outbox rows of this account into `webhook_deliveries` (pending, due
   * when the calls ended); a (subscription, call) pair already queued keeps
   * its row, and the calls of a deleted subscription are dropped. Call in a
   * transaction: the rows leave the outbox in the same one.
   */
  async expand(rows: readonly OutboxRow[]): Promise<void> {
    const postgres = dialectOf(this.t).name === 'postgres';
    const elements = postgres ? 'jsonb_array_elements_text(CAST($4 AS jsonb)) AS j(value)' : 'json_each($4) AS j';
    for (const r of rows) {
      await this.t.run(
        `INSERT INTO webhook_deliveries (account_id, webhook_id, call_id, status, attempts, next_at, lease_until, created_at)
         SELECT CAST($1 AS BIGINT), CAST($2 AS BIGINT), j.value, 'pending', 0, CAST($3 AS BIGINT), 0, CAST($3 AS BIGINT) FROM ${elements}
         WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.account_id = $1 AND w.id = $2)
         ON CONFLICT DO NOTHING`,
        [Number(r.webhook_id), Number(r.created_at), r.call_ids],
      );
      await this.t.run('DELETE FROM webhook_outbox WHERE account_id = $1 AND id = $2', [Number(r.id)]);
    }
  }

  /** This account's outbox, moved into the delivery log (before the log is read or changed). */
  async expandOutbox(): Promise<void> {
    const rows = await this.t.all<OutboxRow>(`SELECT ${OUTBOX_COLUMNS} FROM webhook_outbox WHERE account_id = $1 ORDER BY id${dialectOf(this.t).forUpdate}`);
    await this.expand(rows);
  }

  /** Deliveries, newest first, after cursor `before` (a delivery id). */
  async deliveries(f: { webhookId?: number; status?: DeliveryStatus; callId?: string; before?: number; limit: number }): Promise<DeliveryRow[]> {
    const where = ['account_id = $1'];
    const params: Array<string | number> = [];
    const add = (sql: string, v: string | number) => (params.push(v), where.push(sql.replace('?', `$${params.length + 1}`)));
    if (f.webhookId !== undefined) add('webhook_id = ?', f.webhookId);
    if (f.status !== undefined) add('status = ?', f.status);
    if (f.callId !== undefined) add('call_id = ?', f.callId);
    if (f.before !== undefined) add('id < ?', f.before);
    params.push(f.limit);
    const rows = await this.t.all<DeliveryRow>(
      `SELECT id, webhook_id, call_id, status FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length + 1}`,
      params,
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), webhook_id: Number(r.webhook_id) }));
  }

  async attemptsOf(deliveryIds: number[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    const { sql, param } = dialectOf(this.t).inList('delivery_id', 2, deliveryIds);
    const rows = await this.t.all<AttemptRow>(
      `SELECT delivery_id, n, at, http_status, duration_ms, error, response FROM webhook_attempts WHERE account_id = $1 AND ${sql} ORDER BY delivery_id, n`,
      [param],
    );
    return rows.map((r) => ({
      ...r,
      delivery_id: Number(r.delivery_id),
      n: Number(r.n),
      at: Number(r.at),
      http_status: r.http_status === null ? null : Number(r.http_status),
      duration_ms: Number(r.duration_ms),
    }));
  }

  /** Makes the waiting first deliveries of a call due now (a held report whose wait is over); answers how many. */
  async release(callId: string, now: number): Promise<number> {
    const res = await this.t.run(
      `UPDATE webhook_deliveries SET next_at = $2 WHERE account_id = $1 AND call_id = $3 AND status = 'pending' AND attempts = 0 AND next_at > $2`,
      [now, callId],
    );
    return res.changes;
  }

  /** Makes a delivery due again now (its payload and log kept); false when the id is not the account's. */
  async redeliver(id: number, now: number): Promise<boolean> {
    const res = await this.t.run(
      `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_at = $2, lease_until = 0, lease_token = NULL WHERE account_id = $1 AND id = $3`,
      [now, id],
    );
    return res.changes === 1;
  }
}
