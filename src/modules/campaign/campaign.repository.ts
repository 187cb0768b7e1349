import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';

export interface CampaignRow {
  campaign_id: number;
  name: string;
  state: string;
  mode: string;
  group_id: number;
  did: string;
  cl_ids: string;
  settings: string;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  fresh_cursor: string;
  /** The last list callback change the dialer applied to the campaign (null before its first tick). */
  callback_seq: number | null;
}

const COLUMNS = 'campaign_id, name, state, mode, group_id, did, cl_ids, settings, created_at, updated_at, started_at, fresh_cursor, callback_seq';

/** The campaigns of one account (`campaigns`). */
export class CampaignRepository {
  constructor(private readonly t: TenantQueries) {}

  async nextId(): Promise<number> {
    const row = await this.t.get<{ m: number | null }>('SELECT MAX(campaign_id) AS m FROM campaigns WHERE account_id = $1');
    return Number(row?.m ?? 0) + 1;
  }

  async insert(r: Omit<CampaignRow, 'fresh_cursor' | 'started_at' | 'updated_at' | 'callback_seq'>): Promise<boolean> {
    const res = await this.t.run(
      `INSERT INTO campaigns (account_id, campaign_id, name, state, mode, group_id, did, cl_ids, settings, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (account_id, campaign_id) DO NOTHING`,
      [r.campaign_id, r.name, r.state, r.mode, r.group_id, r.did, r.cl_ids, r.settings, r.created_at],
    );
    return res.changes === 1;
  }

  find(campaignId: number): Promise<CampaignRow | undefined> {
    return this.t.get<CampaignRow>(`SELECT ${COLUMNS} FROM campaigns WHERE account_id = $1 AND campaign_id = $2`, [campaignId]);
  }

  /** Of `campaignIds`, those that exist (a worker tick reads the campaigns it holds in one statement). */
  findMany(campaignIds: readonly number[]): Promise<CampaignRow[]> {
    const list = inList(this.t, 'campaign_id', 2, campaignIds);
    return this.t.all<CampaignRow>(`SELECT ${COLUMNS} FROM campaigns WHERE account_id = $1 AND ${list.sql} ORDER BY campaign_id`, [list.param]);
  }

  /** The row, locked for the change on PostgreSQL (state transitions of one campaign apply one after the other). */
  findForUpdate(campaignId: number): Promise<CampaignRow | undefined> {
    const lock = this.t.dialect === 'postgres' ? ' FOR UPDATE' : '';
    return this.t.get<CampaignRow>(`SELECT ${COLUMNS} FROM campaigns WHERE account_id = $1 AND campaign_id = $2${lock}`, [campaignId]);
  }

  list(): Promise<CampaignRow[]> {
    return this.t.all<CampaignRow>(`SELECT ${COLUMNS} FROM campaigns WHERE account_id = $1 ORDER BY campaign_id`);
  }

  async update(r: CampaignRow): Promise<void> {
    await this.t.run(
      `UPDATE campaigns SET name = $3, state = $4, mode = $5, group_id = $6, did = $7, cl_ids = $8, settings = $9, updated_at = $10, started_at = $11
       WHERE account_id = $1 AND campaign_id = $2`,
      [r.campaign_id, r.name, r.state, r.mode, r.group_id, r.did, r.cl_ids, r.settings, r.updated_at, r.started_at],
    );
  }

  async setState(campaignId: number, state: string, now: number, startedAt: number | null): Promise<void> {
    await this.t.run('UPDATE campaigns SET state = $3, updated_at = $4, started_at = COALESCE(started_at, $5) WHERE account_id = $1 AND campaign_id = $2', [
      campaignId,
      state,
      now,
      startedAt,
    ]);
  }

  async setCursor(campaignId: number, cursor: string): Promise<void> {
    await this.t.run('UPDATE campaigns SET fresh_cursor = $3 WHERE account_id = $1 AND campaign_id = $2', [campaignId, cursor]);
  }

  /** Sets the last list callback change applied to the campaign (CampaignRow.callback_seq). */
  async setCallbackCursor(campaignId: number, seq: number): Promise<void> {
    await this.t.run('UPDATE campaigns SET callback_seq = $3 WHERE account_id = $1 AND campaign_id = $2', [campaignId, seq]);
  }

  /** Deletes the campaign and its dial state; its calls stay (the reports of past calls name it). */
  async remove(campaignId: number): Promise<boolean> {
    await this.t.run('DELETE FROM campaign_contacts WHERE account_id = $1 AND campaign_id = $2', [campaignId]);
    const res = await this.t.run('DELETE FROM campaigns WHERE account_id = $1 AND campaign_id = $2', [campaignId]);
    return res.changes === 1;
  }

  /** Of `clIds`, the campaigns (not stopped or completed) that dial any: the contact-list module's `listInUse`. */
  async activeUsing(): Promise<Array<{ campaign_id: number; cl_ids: string }>> {
    return this.t.all("SELECT campaign_id, cl_ids FROM campaigns WHERE account_id = $1 AND state NOT IN ('stopped', 'completed')");
  }
}

/**
 * The dialer's lease on running campaigns, across accounts: one node dials
 * a campaign at a time; a lease not renewed (its node died) is taken over
 * once it runs out. Times in ms of the injectable clock.
 */
export class CampaignLeaseRepository {
  constructor(private readonly t: TenantQueries) {}

  /**
   * Takes every running campaign free or expired, renews this node's leases
   * that run out before `renewBefore`, and answers every campaign `owner`
   * holds (taken, renewed, or held with time to spare). A lease is renewed
   * only once a third of it has passed, not on every tick: 100 running
   * campaigns were 100 rewritten rows a second (on PostgreSQL a dead tuple
   * each), now about one row in five. PostgreSQL: one statement (the
   * SELECT sees the rows as they were before the UPDATE, so its rows — held
   * with time to spare — and the UPDATE's are apart). SQLite (one node): a
   * read, and a write only when some lease is to take or renew, so most
   * ticks take no write lock.
   */
  async claim(owner: string, now: number, until: number, renewBefore: number): Promise<Array<{ account_id: number; campaign_id: number }>> {
    const why = 'the dialer serves every account: each claimed campaign carries its account_id and is dialled tenant-scoped';
    const take = `UPDATE campaigns SET lease_owner = $1, lease_until = $2
         WHERE state = 'running' AND (lease_until < $3 OR (lease_owner = $1 AND lease_until < $4))
         RETURNING account_id, campaign_id`;
    const kept = "SELECT account_id, campaign_id FROM campaigns WHERE state = 'running' AND lease_owner = $1 AND lease_until >= $4";
    const params = [owner, until, now, renewBefore];
    let rows: Array<{ account_id: number; campaign_id: number }>;
    if (this.t.dialect === 'postgres') {
      rows = await this.t.untenanted(why, `WITH taken AS (${take}) SELECT account_id, campaign_id FROM taken UNION ALL ${kept}`, params);
    } else {
      const running = await this.t.untenanted<{ account_id: number; campaign_id: number; lease_owner: string | null; lease_until: number }>(
        why,
        "SELECT account_id, campaign_id, lease_owner, lease_until FROM campaigns WHERE state = 'running'",
      );
      const due = running.some((r) => Number(r.lease_until) < now || (r.lease_owner === owner && Number(r.lease_until) < renewBefore));
      const held = running.filter((r) => r.lease_owner === owner && Number(r.lease_until) >= renewBefore);
      rows = [...(due ? await this.t.untenanted<{ account_id: number; campaign_id: number }>(why, take, params) : []), ...held];
    }
    // In one order whatever the statements' (the campaigns of an account tick in it).
    return rows
      .map((r) => ({ account_id: Number(r.account_id), campaign_id: Number(r.campaign_id) }))
      .sort((a, b) => a.account_id - b.account_id || a.campaign_id - b.campaign_id);
  }

  /** Lets go of every lease of `owner` (a node stopping): another node takes them at once. */
  async release(owner: string): Promise<void> {
    // RETURNING: `untenanted` reads rows, and SQLite refuses a read of a statement that returns none (the
    // release failed there, swallowed, and a stopped node's campaigns waited for their lease to run out).
    await this.t.untenanted(
      'a node gives up its own leases, in every account',
      'UPDATE campaigns SET lease_until = 0 WHERE lease_owner = $1 RETURNING campaign_id',
      [owner],
    );
  }
}

/** Whether `owner` still holds the campaign's lease at `now` (checked in each dial's transaction). */
export async function holdsLease(t: TenantQueries, campaignId: number, owner: string, now: number): Promise<boolean> {
  const row = await t.get(
    "SELECT 1 AS one FROM campaigns WHERE account_id = $1 AND campaign_id = $2 AND lease_owner = $3 AND lease_until >= $4 AND state = 'running'",
    [campaignId, owner, now],
  );
  return row !== undefined;
}
