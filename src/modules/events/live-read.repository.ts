import type { TenantQueries } from '../../db/tenant.js';
import { inList } from '../../db/in-list.js';
import { AGENT_SELECT, CALL_SELECT, agentFromRow, callFromRow, type AgentRow, type CallRow } from './live-rows.js';

/** Live state reads for the views (Agent/live, queue/*, routing, stream). */
export class LiveReadRepository {
  constructor(private readonly t: TenantQueries) {}

  /** The sequence and the outbound mark (migration 146) in one read: `seq.mark`, a version of what queue/count shows. */
  async sequenceMark(): Promise<string> {
    const row = await this.t.get<{ seq: number; outbound_mark: number }>('SELECT seq, outbound_mark FROM event_seq WHERE account_id = $1');
    return `${Number(row?.seq ?? 0)}.${Number(row?.outbound_mark ?? 0)}`;
  }

  async sequence(): Promise<number> {
    const row = await this.t.get<{ seq: number }>('SELECT seq FROM event_seq WHERE account_id = $1');
    return Number(row?.seq ?? 0);
  }

  /**
   * What Agent/live depends on besides the clock, in one cheap statement: the
   * event sequence, the account's agent and group-mapping counts and its
   * default group. Equal versions mean an equal view (within a clock second).
   */
  async viewVersion(): Promise<string> {
    const row = await this.t.get<Record<string, unknown>>(
      `SELECT (SELECT seq FROM event_seq WHERE account_id = $1) AS seq,
              (SELECT COUNT(*) FROM agents WHERE account_id = $1 AND is_deleted = 0) AS agents,
              (SELECT COUNT(*) FROM agent_groups WHERE account_id = $1) AS mappings,
              (SELECT default_group_id FROM accounts WHERE id = $1) AS dg`,
    );
    return `${row?.seq ?? 0}:${row?.agents}:${row?.mappings}:${row?.dg ?? 'null'}`;
  }

  /** Of `ids`: agents logged in, not on break, not deleted. */
  async available(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const { sql, param } = inList(this.t, 'l.agent_id', 2, ids);
    const rows = await this.t.all<{ agent_id: number }>(
      `SELECT l.agent_id FROM live_agents l JOIN agents a ON a.account_id = l.account_id AND a.id = l.agent_id
       WHERE l.account_id = $1 AND l.logged_in = 1 AND l.break_reason IS NULL AND a.is_deleted = 0 AND ${sql}`,
      [param],
    );
    return new Set(rows.map((r) => Number(r.agent_id)));
  }

  async agents() {
    const rows = await this.t.all<AgentRow>(`SELECT ${AGENT_SELECT} FROM live_agents l WHERE l.account_id = $1`);
    return rows.map(agentFromRow);
  }

  async calls() {
    const rows = await this.t.all<CallRow>(`SELECT ${CALL_SELECT} FROM live_calls WHERE account_id = $1 ORDER BY queued_at, call_id`);
    return rows.map(callFromRow);
  }

  /** Live calls of a caller number, newest first. */
  async callsOfCaller(caller: string) {
    const rows = await this.t.all<CallRow>(`SELECT ${CALL_SELECT} FROM live_calls WHERE account_id = $1 AND caller = $2 ORDER BY queued_at DESC`, [caller]);
    return rows.map(callFromRow);
  }

  async call(callId: string) {
    const row = await this.t.get<CallRow>(`SELECT ${CALL_SELECT} FROM live_calls WHERE account_id = $1 AND call_id = $2`, [callId]);
    return row ? callFromRow(row) : undefined;
  }

  /** Change groups after `seq` (the stream), oldest first. */
  changesAfter(seq: number, limit: number) {
    return this.t.all<{ seq: number; body: string }>('SELECT seq, body FROM live_changes WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
      seq,
      limit,
    ]);
  }

  /** Whether the change log holds the group that ends at `seq` (an id the stream sent). */
  async hasChange(seq: number): Promise<boolean> {
    return (await this.t.get('SELECT 1 AS found FROM live_changes WHERE account_id = $1 AND seq = $2', [seq])) !== undefined;
  }

  async oldestChange(): Promise<number | null> {
    const row = await this.t.get<{ seq: number | null }>('SELECT MIN(seq) AS seq FROM live_changes WHERE account_id = $1');
    return row?.seq === null || row?.seq === undefined ? null : Number(row.seq);
  }
}
