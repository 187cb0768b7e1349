import type { TenantQueries } from '../../db/tenant.js';
import { dialectOf } from '../../db/dialect.js';
import { inList, probeRows } from '../../db/in-list.js';
import { bulkWrite } from '../../db/bulk.js';
import type { Param } from '../../db/types.js';
import type { AgentLive, CallLive } from './live.types.js';
import { AGENT_COLUMNS, AGENT_SELECT, CALL_COLUMNS, CALL_SELECT, agentFromValues, agentRow, callFromValues, callRow } from './live-rows.js';

/**
 * How the working set (agents(), callsAndEnded()) is read: `json` on SQLite
 * (the default there), `values` everywhere else and on SQLite when asked
 * (the plain path, kept equal to the other by test/integration/live-rows.test.ts).
 */
export type WorkingSetRead = 'json' | 'values';

/** Live state reads and writes of the ingest path (one account, inside the batch transaction). */
export class LiveStateRepository {
  private readonly read: WorkingSetRead;

  constructor(
    private readonly t: TenantQueries,
    read?: WorkingSetRead,
  ) {
    this.read = dialectOf(t).name === 'sqlite' ? (read ?? 'json') : 'values';
  }

  /**
   * The account's sequence, locked for the rest of the transaction: batches
   * (and takeovers) of one account apply one after the other on every node.
   */
  async lockSequence(): Promise<number> {
    // The batch lookups pass arrays whose size the generic plan of a prepared
    // statement cannot know (it then hash-joins whole tables): plan each with its values.
    const customPlans = dialectOf(this.t).customPlansUntilCommit;
    if (customPlans) await this.t.untenanted('a planner setting of this transaction: reads no table', customPlans);
    // One statement: the no-op update takes the row lock (PostgreSQL) and answers the sequence.
    const row = await this.t.get<{ seq: number }>(
      'INSERT INTO event_seq (account_id, seq) VALUES ($1, 0) ON CONFLICT (account_id) DO UPDATE SET seq = event_seq.seq RETURNING seq',
    );
    return Number(row?.seq ?? 0);
  }

  /**
   * After the batch's reads: its writes (set-at-a-time inserts from arrays,
   * the roll-ups' one statement of five tables) plan the same whatever the
   * arrays hold, and planning them anew every batch cost time under the
   * account's lock (PostgreSQL, bench/ingest-statements.ts, two alternated
   * runs each: a batch 74.0, 73.2 → 69.0, 62.6 ms; the analysis roll-up
   * statement 14.6 → 9.4 ms). The reads that follow are index probes
   * (probeRows), whose generic plan is the same (test/integration/dialect.test.ts).
   */
  async customPlansEnd() {
    const end = dialectOf(this.t).customPlansEnd;
    if (end) await this.t.untenanted('a planner setting of this transaction: reads no table', end);
  }

  /** A change of campaign calls without a sequence number of its own (migration 146). */
  markOutbound() {
    return this.t.run('UPDATE event_seq SET outbound_mark = outbound_mark + 1 WHERE account_id = $1');
  }

  setSequence(seq: number) {
    return this.t.run('UPDATE event_seq SET seq = $2 WHERE account_id = $1', [seq]);
  }

  async knownEventIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { sql, param } = probeRows(this.t, 'event_ids', 'e', 'event_id', 2, ids);
    const rows = await this.t.all<{ event_id: string }>(`SELECT e.event_id FROM ${sql}`, [param]);
    return new Set(rows.map((r) => r.event_id));
  }

  rememberEventIds(rows: Array<{ event_id: string; seq: number }>) {
    return bulkWrite(
      this.t,
      'event_ids',
      [
        { name: 'event_id', pg: 'text' },
        { name: 'seq', pg: 'bigint' },
      ],
      ['event_id'],
      rows,
      'nothing',
    );
  }

  /** Non-deleted agents among `ids`, each with its live row when it has one. */
  async agents(ids: number[]): Promise<Map<number, AgentLive | null>> {
    const out = new Map<number, AgentLive | null>();
    if (ids.length === 0) return out;
    const { sql, param } = probeRows(this.t, 'agents', 'a', 'id', 2, ids);
    // As arrays: the working set is a batch's largest read (agentFromValues says why).
    const from = `FROM ${sql}
       LEFT JOIN live_agents l ON l.account_id = a.account_id AND l.agent_id = a.id
       WHERE a.is_deleted = 0`;
    const rows = await this.values(`SELECT a.id, ${AGENT_SELECT} ${from}`, `SELECT json_group_array(json_array(a.id, ${AGENT_SELECT})) ${from}`, param);
    for (const r of rows) out.set(Number(r[0]), r[1] === null || r[1] === undefined ? null : agentFromValues(r, 1));
    return out;
  }

  /** Live calls among `ids`, and which of the others are finished (in the history): one round trip. */
  async callsAndEnded(ids: string[]): Promise<{ calls: Map<string, CallLive>; ended: Set<string> }> {
    const calls = new Map<string, CallLive>();
    const ended = new Set<string>();
    if (ids.length === 0) return { calls, ended };
    const live = probeRows(this.t, 'live_calls', 'l', 'call_id', 2, ids);
    const done = probeRows(this.t, 'calls', 'h', 'call_id', 2, ids);
    // A finished call has no live row, so the two halves never name the same call.
    // As arrays, like agents().
    const union = `SELECT 0 AS ended, ${CALL_SELECT} FROM ${live.sql}
       UNION ALL
       SELECT 1 AS ended, h.call_id, '', 0, NULL, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, '[]', 0, 0, '[]'
       FROM ${done.sql}`;
    const rows = await this.values(union, `SELECT json_group_array(json_array(ended, ${CALL_SELECT})) FROM (${union}) AS w`, live.param);
    for (const r of rows) {
      if (Number(r[0]) === 1) ended.add(r[1] as string);
      else calls.set(r[1] as string, callFromValues(r, 1));
    }
    return { calls, ended };
  }

  /**
   * The rows of `plain` as arrays, in no particular order. On SQLite `json`
   * instead: the same columns as one JSON text, parsed once
   * (`json_group_array(json_array(…))`). better-sqlite3 makes every value of
   * every row through the V8 API (~90 ns each) and a complete-call batch's
   * working set is ~10,000 values. Measured (bench/ingest-statements.ts'
   * traffic, SQLite, in one process, each batch read one way or the other at
   * random, ~260 batches each, medians): agents() 0.79 → 0.63 ms,
   * callsAndEnded() 0.95 → 0.85 ms, ~2 % of a batch's CPU. SQLite (3.53,
   * bundled with better-sqlite3) renders a REAL as the shortest text that
   * parses back to the same double and escapes what JSON must, so both reads
   * give the same values: test/integration/live-rows.test.ts compares them
   * on random doubles and strings. The plain read is PostgreSQL's.
   */
  private async values(plain: string, json: string, param: Param): Promise<unknown[][]> {
    if (this.read === 'values') return this.t.allValues(plain, [param]);
    const row = await this.t.getValues(json, [param]);
    return JSON.parse(row![0] as string) as unknown[][];
  }

  async existingGroups(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const { sql, param } = inList(this.t, 'group_id', 2, ids);
    const rows = await this.t.all<{ group_id: number }>(`SELECT group_id FROM groups WHERE account_id = $1 AND ${sql}`, [param]);
    return new Set(rows.map((r) => Number(r.group_id)));
  }

  saveAgents(agents: AgentLive[]) {
    return bulkWrite(this.t, 'live_agents', AGENT_COLUMNS, ['agent_id'], agents.map(agentRow), 'update');
  }

  saveCalls(calls: CallLive[]) {
    return bulkWrite(this.t, 'live_calls', CALL_COLUMNS, ['call_id'], calls.map(callRow), 'update');
  }

  async deleteCalls(ids: string[]) {
    if (ids.length === 0) return;
    const { sql, param } = inList(this.t, 'call_id', 2, ids);
    await this.t.run(`DELETE FROM live_calls WHERE account_id = $1 AND ${sql}`, [param]);
  }

  /** One change group for the stream; groups older than `keep` sequence numbers are dropped. */
  async appendChange(seq: number, batchSize: number, body: string, keepBelow: number) {
    await this.t.run('INSERT INTO live_changes (account_id, seq, body) VALUES ($1, $2, $3)', [seq, body]);
    await this.trim(seq, batchSize, keepBelow);
  }

  /** Several change groups in one statement (consecutive sequence numbers, ascending); trimmed as appendChange does. */
  async appendChanges(groups: ReadonlyArray<{ seq: number; body: string }>, keepBelow: number) {
    if (groups.length === 0) return;
    const j = dialectOf(this.t).jsonRows(2, 'j', [
      ['seq', 'bigint'],
      ['body', 'text'],
    ]);
    await this.t.run(`INSERT INTO live_changes (account_id, seq, body) SELECT CAST($1 AS BIGINT), j.seq, j.body FROM ${j}`, [JSON.stringify(groups)]);
    const last = groups[groups.length - 1]!.seq;
    await this.trim(last, last - groups[0]!.seq + 1, keepBelow);
  }

  // Trimmed about every 1000 sequence numbers, not every batch: one round trip less on the hot path.
  private async trim(last: number, batchSize: number, keepBelow: number) {
    if (Math.floor(last / 1000) !== Math.floor((last - batchSize) / 1000)) {
      await this.t.run('DELETE FROM live_changes WHERE account_id = $1 AND seq < $2', [keepBelow]);
    }
  }
}
