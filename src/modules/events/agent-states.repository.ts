import { bulkWrite, type BulkColumn } from '../../db/bulk.js';
import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';
import type { Param } from '../../db/types.js';
import type { AgentStateRow } from './agent-history.js';

const COLUMNS: BulkColumn[] = [
  { name: 'agent_id', pg: 'bigint' },
  { name: 'ts', pg: 'double precision' },
  { name: 'seq', pg: 'bigint' },
  { name: 'logged_in', pg: 'integer' },
  { name: 'login_type', pg: 'text' },
  { name: 'break_reason', pg: 'text' },
  { name: 'wrapup_at', pg: 'double precision' },
  { name: 'ring_call', pg: 'text' },
  { name: 'ring_at', pg: 'double precision' },
  { name: 'call_id', pg: 'text' },
  { name: 'call_at', pg: 'double precision' },
];
const NAMES = COLUMNS.map((c) => c.name).join(', ');

function fromRow(r: AgentStateRow): AgentStateRow {
  return { ...r, agent_id: Number(r.agent_id), ts: Number(r.ts), seq: Number(r.seq), logged_in: Number(r.logged_in) };
}

/**
 * Agents' states over time, in two tables (migration 260): the ingest
 * appends to `agent_state_recent` (keyed by time: a batch's rows share a page
 * or two) and `moveRecent` carries the account's rows over to
 * `agent_state_log` (keyed by agent: the reads of past events) now and then.
 * A row is in exactly one of them; reads look at both.
 */
export class AgentStatesRepository {
  constructor(private readonly t: TenantQueries) {}

  /** Each agent's rows from the last one at or before `from` up to `to` (and maybe a few earlier: harmless, agent-history.ts takes the last at or before a time). */
  async history(want: Map<number, { from: number; to: number }>): Promise<Map<number, AgentStateRow[]>> {
    const out = new Map<number, AgentStateRow[]>();
    if (want.size === 0) return out;
    for (const [agentId, { from, to }] of want) {
      const rows = await this.t.all<AgentStateRow>(
        `SELECT ${NAMES} FROM agent_state_log
         WHERE account_id = $1 AND agent_id = $2 AND ts <= $4
           AND ts >= COALESCE((SELECT MAX(ts) FROM agent_state_log WHERE account_id = $1 AND agent_id = $2 AND ts <= $3), 0)`,
        [agentId, from, to],
      );
      out.set(agentId, rows.map(fromRow));
    }
    // The recent rows of every wanted agent at once: the table holds at most the last 10,000 events' worth of the account.
    const to = Math.max(...[...want.values()].map((w) => w.to));
    const { sql, param } = inList(this.t, 'agent_id', 2, [...want.keys()]);
    const recent = await this.t.all<AgentStateRow>(`SELECT ${NAMES} FROM agent_state_recent WHERE account_id = $1 AND ${sql} AND ts <= $3`, [param, to]);
    for (const r of recent) out.get(Number(r.agent_id))!.push(fromRow(r));
    return out;
  }

  saveRecent(rows: AgentStateRow[]) {
    return bulkWrite(this.t, 'agent_state_recent', COLUMNS, ['ts', 'agent_id', 'seq'], rows as unknown as Record<string, Param>[], 'nothing');
  }

  /** Moves the account's recent rows to agent_state_log; the caller holds the account's sequence lock (no batch adds rows between the two statements). */
  async moveRecent(): Promise<void> {
    await this.t.run(
      `INSERT INTO agent_state_log (account_id, ${NAMES})
       SELECT account_id, ${NAMES} FROM agent_state_recent WHERE account_id = $1
       ON CONFLICT (account_id, agent_id, ts, seq) DO NOTHING`,
    );
    await this.t.run('DELETE FROM agent_state_recent WHERE account_id = $1');
  }
}
