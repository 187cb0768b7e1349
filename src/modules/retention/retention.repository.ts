import { inList } from '../../db/in-list.js';
import { tenant, type TenantQueries } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';

/**
 * The rows the retention job removes, one bounded batch per call. Like
 * privacy/'s repository it deletes from other modules' tables: retention is
 * one rule ("older than the horizon goes") across all of them, kept in one
 * place so none is forgotten. Roll-ups (analysis_*, report_*) are never
 * touched: they are what answers for purged days.
 */
export class RetentionRepository {
  private readonly t: TenantQueries;

  constructor(
    private readonly q: Queryable,
    accountId: number,
  ) {
    this.t = tenant(q, accountId);
  }

  /** Up to `limit` finished calls queued before `cutoff` (Unix seconds), oldest first (the calls_queued index). */
  async oldCalls(cutoff: number, limit: number): Promise<string[]> {
    const rows = await this.t.all<{ call_id: string }>(
      `SELECT call_id FROM calls WHERE account_id = $1 AND queued_at < $2 ORDER BY queued_at LIMIT ${Math.trunc(limit)}`,
      [cutoff],
    );
    return rows.map((r) => r.call_id);
  }

  /** Removes the calls and everything kept per call; answers the counts and the recording paths no longer named. */
  async removeCalls(callIds: string[]): Promise<{ calls: number; hits: number; recordings: number; paths: string[] }> {
    const ids = inList(this.t, 'call_id', 2, callIds);
    const recs = await this.t.all<{ path: string }>(`SELECT path FROM call_recordings WHERE account_id = $1 AND ${ids.sql}`, [ids.param]);
    const recordings = (await this.t.run(`DELETE FROM call_recordings WHERE account_id = $1 AND ${ids.sql}`, [ids.param])).changes;
    const hits = (await this.t.run(`DELETE FROM call_hits WHERE account_id = $1 AND ${ids.sql}`, [ids.param])).changes;
    await this.t.run(`DELETE FROM call_legs WHERE account_id = $1 AND ${ids.sql}`, [ids.param]);
    await this.t.run(`DELETE FROM originated_calls WHERE account_id = $1 AND ${ids.sql}`, [ids.param]);
    await this.t.run(
      `DELETE FROM webhook_attempts WHERE account_id = $1 AND delivery_id IN (SELECT id FROM webhook_deliveries WHERE account_id = $1 AND ${ids.sql})`,
      [ids.param],
    );
    await this.t.run(`DELETE FROM webhook_deliveries WHERE account_id = $1 AND ${ids.sql}`, [ids.param]);
    const calls = (await this.t.run(`DELETE FROM calls WHERE account_id = $1 AND ${ids.sql}`, [ids.param])).changes;
    return { calls, hits, recordings, paths: await this.unnamed(recs.map((r) => r.path)) };
  }

  /**
   * Up to about `limit` recordings made before `cutoff`: the batch ends at
   * the time of the limit-th oldest (rows at that same instant go together).
   */
  async removeOldRecordings(cutoff: number, limit: number): Promise<{ recordings: number; paths: string[] }> {
    const edge = await this.t.get<{ at: number }>(
      `SELECT at FROM call_recordings WHERE account_id = $1 AND at < $2 ORDER BY at LIMIT 1 OFFSET ${Math.trunc(limit) - 1}`,
      [cutoff],
    );
    const until = edge ? Number(edge.at) : null;
    const where = until === null ? 'at < $2' : 'at < $2 AND at <= $3';
    const params = until === null ? [cutoff] : [cutoff, until];
    const recs = await this.t.all<{ path: string }>(`SELECT path FROM call_recordings WHERE account_id = $1 AND ${where}`, params);
    if (recs.length === 0) return { recordings: 0, paths: [] };
    const recordings = (await this.t.run(`DELETE FROM call_recordings WHERE account_id = $1 AND ${where}`, params)).changes;
    return { recordings, paths: await this.unnamed(recs.map((r) => r.path)) };
  }

  /**
   * Campaign dials placed before `cutoff` (and ended) keep their counts and
   * lose what names a person: the number becomes '' and the disposition's
   * notes NULL. Their rows stay because report/campaign, queue/count's
   * `campId[]` and the abandon window count them (PRODUCT.md §12: reports
   * answer for purged days as before). Oldest first through the partial
   * index of the dials that still have a number (migration 274).
   */
  async expireCampaignDials(cutoff: number, limit: number): Promise<number> {
    const rows = await this.t.all<{ call_id: string }>(
      `SELECT call_id FROM campaign_calls WHERE account_id = $1 AND dialled_at < $2 AND number <> '' AND ended_at IS NOT NULL ORDER BY dialled_at LIMIT ${Math.trunc(limit)}`,
      // Whole seconds: a dial of second s is older than the cutoff c when s < ⌈c⌉.
      [Math.ceil(cutoff)],
    );
    if (rows.length === 0) return 0;
    const ids = inList(
      this.t,
      'call_id',
      2,
      rows.map((r) => r.call_id),
    );
    return (await this.t.run(`UPDATE campaign_calls SET number = '', notes = NULL WHERE account_id = $1 AND ${ids.sql}`, [ids.param])).changes;
  }

  /** Click-to-call rows placed before `cutoff` whose call never reached the history (never reported, or purged). */
  async removeOldOriginated(cutoff: number, limit: number): Promise<number> {
    const rows = await this.t.all<{ call_id: string }>(
      `SELECT call_id FROM originated_calls WHERE account_id = $1 AND created_at < $2 ORDER BY created_at LIMIT ${Math.trunc(limit)}`,
      [cutoff],
    );
    if (rows.length === 0) return 0;
    const ids = inList(
      this.t,
      'call_id',
      2,
      rows.map((r) => r.call_id),
    );
    return (await this.t.run(`DELETE FROM originated_calls WHERE account_id = $1 AND ${ids.sql}`, [ids.param])).changes;
  }

  /** Agents with agent_state_log rows before `cutoff`. */
  async agentsWithOldStates(cutoff: number): Promise<number[]> {
    const rows = await this.t.all<{ agent_id: number }>('SELECT DISTINCT agent_id FROM agent_state_log WHERE account_id = $1 AND ts < $2', [cutoff]);
    return rows.map((r) => Number(r.agent_id));
  }

  /**
   * Removes up to about `limit` of an agent's states older than its last one
   * at or before `cutoff`. That one stays: an event at or after the cutoff is
   * judged against the latest state at or before its own time
   * (events/live-state.repository.ts), which is therefore unchanged.
   */
  async removeOldStates(agentId: number, cutoff: number, limit: number): Promise<number> {
    const keep = await this.t.get<{ ts: number | null }>('SELECT MAX(ts) AS ts FROM agent_state_log WHERE account_id = $1 AND agent_id = $2 AND ts <= $3', [
      agentId,
      cutoff,
    ]);
    if (keep?.ts === null || keep?.ts === undefined) return 0;
    const edge = await this.t.get<{ ts: number }>(
      `SELECT ts FROM agent_state_log WHERE account_id = $1 AND agent_id = $2 AND ts < $3 ORDER BY ts LIMIT 1 OFFSET ${Math.trunc(limit) - 1}`,
      [agentId, keep.ts],
    );
    // Up to the limit-th oldest, its ties included (so a batch always makes progress), else everything before the kept state.
    const sql = edge ? 'ts <= $3' : 'ts < $3';
    return (await this.t.run(`DELETE FROM agent_state_log WHERE account_id = $1 AND agent_id = $2 AND ${sql}`, [agentId, edge ? edge.ts : keep.ts])).changes;
  }

  /** Of `paths`, those no recording row (of any account) names any more: their files may go. */
  private async unnamed(paths: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const p of new Set(paths)) {
      // Across tenants on purpose: a file two accounts reported stays while either holds it.
      if ((await this.q.get('SELECT 1 AS x FROM call_recordings WHERE path = $1 LIMIT 1', [p])) === undefined) out.push(p);
    }
    return out;
  }
}
