import { dialectOf } from '../../../db/dialect.js';
import type { Dialect, Param, Queryable } from '../../../db/types.js';
import { tenant, type TenantQueries } from '../../../db/tenant.js';
import { COLS, DERIVED, IX, NCOLS, type Dim } from '../rollup/counters.js';
import { CALL_COLUMNS, type CallRow } from '../rollup/rollup-store.js';

/** Kept and excluded values of one filter dimension (already normalised). */
export interface ValueFilter {
  include: string[] | null;
  exclude: string[];
}

export interface RollupSelection {
  table: 'analysis_fine' | 'analysis_hourly' | 'analysis_daily';
  dim: Dim;
  /** Inclusive bucket bounds (5-minute slot, hour or local-day numbers); null = unbounded. */
  from: number | null;
  to: number | null;
  keys: ValueFilter;
  directions: ValueFilter;
  byBucket: boolean;
}

export interface CubeSelection {
  from: number | null;
  to: number | null;
  /** agents: the per-agent cells (agent_id > 0); calls: the per-call cells (agent_id = 0). */
  cells: 'agents' | 'calls';
  dim: Dim;
  filters: Partial<Record<Dim | 'direction', ValueFilter>>;
  byBucket: boolean;
}

const CUBE_COLUMNS: Record<Dim | 'direction', string> = { agent: 'agent_id', group: 'group_id', did: 'did', campaign: 'campaign_id', direction: 'direction' };
// Cube cells of calls without a group / DID / campaign.
const CUBE_NONE: Record<Dim, string> = { agent: '0', group: '-1', did: "''", campaign: "''" };

export interface RawSelection {
  from: number | null;
  to: number | null;
  filters: Partial<Record<Dim | 'direction', ValueFilter>>;
}

const CALL_FILTER_COLUMNS: Record<Exclude<Dim, 'agent'> | 'direction', string> = {
  group: 'c.group_id',
  did: 'c.did',
  campaign: 'c.campaign_id',
  direction: 'c.direction',
};
const NUMERIC = new Set(['agent', 'group']);
/**
 * The columns read back (the ghost column is chosen per account). MC, UC and
 * FR_UC are not: they follow from the others (counters.ts, DERIVED), and
 * every value read costs — a month of days by agent reads 6,000 rows.
 */
const SUMMED = COLS.filter((c) => !c.startsWith('gh') && !(c in DERIVED));
/** The integer counters, read back packed in one text per row ("12,0,3,…"), then the ghost count. */
const PACKED = SUMMED.filter((c) => c !== 'ring_sum' && c !== 'hold_sum');
/** Vector slots of the packed values, in order (the ghost count goes to slot NCOLS). */
export const PACKED_SLOTS: readonly number[] = [...PACKED.map((c) => IX[c]), NCOLS];

/**
 * Integer counters joined into one text: the drivers pay per value read
 * (PostgreSQL's a string and a parse each), and one value instead of ten
 * read a month of days by agent 2.5 × faster through `pg`. The sums of
 * seconds stay separate columns (reals, not to be reformatted).
 */
function packed(dialect: Dialect, exprs: string[]): string {
  return dialectOf(dialect).packedIntegers(exprs);
}

/**
 * The values read back for the roll-up paths: packed integer counters (with
 * the ghost count last), ring_sum, hold_sum. `sum` wraps each column in SUM
 * for the aggregated reads. Counts are summed as INTEGER: on PostgreSQL
 * SUM(bigint) is NUMERIC arithmetic (slow), SUM(integer) is int8. A cell
 * never holds 2^31 calls; the sum itself is 64-bit.
 */
function readList(dialect: Dialect, ghostCol: string, sum: boolean): string {
  // COALESCE: concat_ws skips NULLs, which would shift every later value. The columns are NOT NULL,
  // but a SUM over no rows is NULL.
  const int = (c: string) => (sum ? `COALESCE(SUM(CAST(${c} AS INTEGER)), 0)` : c);
  const real = (c: string) => (sum ? `SUM(${c})` : c);
  return `${packed(dialect, [...PACKED, ghostCol].map(int))} AS counts, ${real('ring_sum')} AS ring_sum, ${real('hold_sum')} AS hold_sum`;
}

/** Adds a packed text of integers (as `packed` writes them) into `vec` at PACKED_SLOTS. */
export function addPacked(text: string, vec: number[]): void {
  let slot = 0;
  let n = 0;
  let negative = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c === 44) {
      vec[PACKED_SLOTS[slot++]!]! += negative ? -n : n;
      n = 0;
      negative = false;
    } else if (c === 45) negative = true;
    else n = n * 10 + (c - 48);
  }
}

/** Builds `AND col IN (...)` / `NOT IN` clauses, pushing parameters (numbered after $1, the account). */
function valueClauses(col: string, f: ValueFilter | undefined, params: Param[], numeric: boolean): string {
  if (!f) return '';
  // A numeric column never matches a non-numeric value.
  if (numeric) f = { include: f.include && f.include.filter((v) => /^\d+$/.test(v)), exclude: f.exclude.filter((v) => /^\d+$/.test(v)) };
  const conv = (v: string): Param => (numeric ? Number(v) : v);
  const list = (vals: string[]) => vals.map((v) => (params.push(conv(v)), `$${params.length + 1}`)).join(', ');
  let sql = '';
  if (f.include) sql += f.include.length === 0 ? ' AND 1 = 0' : ` AND ${col} IN (${list(f.include)})`;
  if (f.exclude.length > 0) sql += ` AND (${col} IS NULL OR ${col} NOT IN (${list(f.exclude)}))`;
  return sql;
}

export class AnalysisRepository {
  private readonly t: TenantQueries;

  constructor(db: Queryable, accountId: number) {
    this.t = tenant(db, accountId);
  }

  /** The zone the daily roll-up is keyed in (null: nothing rolled up yet). */
  async rollupZone(): Promise<string | null> {
    const row = await this.t.get<{ timezone: string }>('SELECT timezone FROM analysis_rollup_state WHERE account_id = $1');
    return row?.timezone ?? null;
  }

  /** The first slot start (Unix seconds) from which analysis_fine holds every call (migration 100; 0 when nothing is rolled up yet). */
  async fineFrom(): Promise<number> {
    const row = await this.t.get<{ fine_from: number }>('SELECT fine_from FROM analysis_rollup_state WHERE account_id = $1');
    return Number(row?.fine_from ?? 0);
  }

  /** Change marks of the UTC hours fromHour…toHour (analysis_hour_versions; an hour never marked has no row). */
  async hourVersions(fromHour: number, toHour: number): Promise<Map<number, number>> {
    const rows = await this.t.allValues('SELECT utc_hour, version FROM analysis_hour_versions WHERE account_id = $1 AND utc_hour >= $2 AND utc_hour <= $3', [
      fromHour,
      toHour,
    ]);
    return new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));
  }

  /** Change marks of the UTC days fromDay…toDay (analysis_versions; a day never marked has no row). */
  async versions(fromDay: number, toDay: number): Promise<Map<number, number>> {
    const rows = await this.t.allValues('SELECT utc_day, version FROM analysis_versions WHERE account_id = $1 AND utc_day >= $2 AND utc_day <= $3', [
      fromDay,
      toDay,
    ]);
    return new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));
  }

  /**
   * Column sums per key (and bucket) over roll-up rows; `gh` is the ghost
   * column for the account's threshold. Rows are arrays: key, bucket (when
   * `byBucket`), the packed integer counters (addPacked), ring_sum, hold_sum.
   */
  async rollupSums(s: RollupSelection, ghostCol: string): Promise<unknown[][]> {
    const params: Param[] = [s.dim];
    let where = 'account_id = $1 AND dim = $2';
    if (s.from !== null) where += ` AND bucket >= $${params.push(s.from) + 1}`;
    if (s.to !== null) where += ` AND bucket <= $${params.push(s.to) + 1}`;
    where += valueClauses('k', s.keys.include || s.keys.exclude.length ? s.keys : undefined, params, false);
    where += valueClauses('direction', s.directions.include || s.directions.exclude.length ? s.directions : undefined, params, false);
    // Daily per-dimension rows carry no direction (one row per bucket and key): read per bucket,
    // they need no aggregation, which is most of the cost of a month of days by agent.
    if (s.byBucket && s.table === 'analysis_daily') {
      return this.t.allValues(`SELECT k, bucket, ${readList(this.t.dialect, ghostCol, false)} FROM ${s.table} WHERE ${where}`, params);
    }
    const sums = readList(this.t.dialect, ghostCol, true);
    // bucket first: the primary key's order, so the aggregate streams without a sort.
    const group = s.byBucket ? 'bucket, k' : 'k';
    return this.t.allValues(`SELECT k, ${s.byBucket ? 'bucket, ' : ''}${sums} FROM ${s.table} WHERE ${where} GROUP BY ${group}`, params);
  }

  /** Column sums per key (and local day) over the cube, for filter combinations across dimensions; rows as rollupSums. */
  async cubeSums(s: CubeSelection, ghostCol: string): Promise<unknown[][]> {
    const params: Param[] = [];
    const keyCol = CUBE_COLUMNS[s.dim];
    let where = `account_id = $1 AND agent_id ${s.cells === 'agents' ? '> 0' : '= 0'} AND ${keyCol} <> ${CUBE_NONE[s.dim]}`;
    if (s.from !== null) where += ` AND bucket >= $${params.push(s.from) + 1}`;
    if (s.to !== null) where += ` AND bucket <= $${params.push(s.to) + 1}`;
    for (const [dim, col] of Object.entries(CUBE_COLUMNS)) where += valueClauses(col, s.filters[dim as Dim], params, NUMERIC.has(dim));
    const sums = readList(this.t.dialect, ghostCol, true);
    const group = s.byBucket ? `bucket, ${keyCol}` : keyCol;
    return this.t.allValues(`SELECT ${keyCol} AS k${s.byBucket ? ', bucket' : ''}, ${sums} FROM analysis_cube WHERE ${where} GROUP BY ${group}`, params);
  }

  private callWhere(s: RawSelection, params: Param[]): string {
    let where = 'c.account_id = $1';
    // (agent filters apply to hits: rawCalls adds them to the hits query)
    if (s.from !== null) where += ` AND c.queued_at >= $${params.push(s.from) + 1}`;
    if (s.to !== null) where += ` AND c.queued_at < $${params.push(s.to) + 1}`;
    for (const [dim, col] of Object.entries(CALL_FILTER_COLUMNS)) {
      where += valueClauses(col, s.filters[dim as keyof typeof CALL_FILTER_COLUMNS], params, NUMERIC.has(dim));
    }
    return where;
  }

  /**
   * Raw fallback for named agents: driven by the hits index (account, agent,
   * ring time), so a month of two agents' hits costs their hits, not the
   * month's calls. Offers ring after the call is queued and within a day of
   * it. `sharedOnly`: only the calls offered to two or more of the agents.
   */
  private async rawByAgents(s: RawSelection, agents: string[], sharedOnly = false) {
    const params: Param[] = [];
    const agentClause = valueClauses('h.agent_id', { include: agents, exclude: s.filters.agent?.exclude ?? [] }, params, true);
    let ring = '';
    if (s.from !== null) ring += ` AND h.ring_at >= $${params.push(s.from) + 1}`;
    if (s.to !== null) ring += ` AND h.ring_at < $${params.push(s.to + 86400) + 1}`;
    const shared = sharedOnly
      ? ` AND h.call_id IN (SELECT o.call_id FROM call_hits o WHERE o.account_id = $1${agentClause.replaceAll('h.agent_id', 'o.agent_id')}${ring.replaceAll('h.ring_at', 'o.ring_at')} GROUP BY o.call_id HAVING COUNT(DISTINCT o.agent_id) > 1)`
      : '';
    const where = `h.account_id = $1${agentClause}${ring}${shared} AND c.account_id = h.account_id AND c.call_id = h.call_id AND ${this.callWhere(s, params)}`;
    const cols = CALL_COLUMNS.split(', ')
      .map((c) => `c.${c}`)
      .join(', ');
    const rows = await this.t.all<CallRow & { agent_id: number; ring_secs: number; answered: number }>(
      `SELECT ${cols}, h.agent_id, h.ring_secs, h.answered FROM call_hits h CROSS JOIN calls c WHERE ${where}`,
      params,
    );
    const calls = new Map<string, CallRow>();
    for (const r of rows) if (!calls.has(r.call_id)) calls.set(r.call_id, r);
    const candidates = [...calls.values()].filter((c) => c.answered_at === null).map((c) => c.call_id);
    const retried = new Set<string>();
    for (let i = 0; i < candidates.length; i += 500) {
      const chunk = candidates.slice(i, i + 500);
      const found = await this.t.all<{ retry_of: string }>(
        `SELECT DISTINCT retry_of FROM calls WHERE account_id = $1 AND answered_at IS NOT NULL AND retry_of IN (${chunk.map((_, j) => `$${j + 2}`).join(', ')})`,
        chunk,
      );
      found.forEach((f) => retried.add(f.retry_of));
    }
    return { calls: [...calls.values()], hits: rows, retried };
  }

  /** The selected calls offered to two or more of `agents` (numeric ids), with their hits by those agents; rawCalls' shape. */
  async sharedCalls(s: RawSelection, agents: string[]): ReturnType<AnalysisRepository['rawCalls']> {
    return this.rawByAgents(s, agents, true);
  }

  /** Raw fallback: the selected calls, their hits (agent filter applied) and which unanswered ones have an answered retry. */
  async rawCalls(s: RawSelection): Promise<{
    calls: CallRow[];
    hits: { call_id: string; agent_id: number; ring_secs: number; answered: number }[];
    retried: Set<string>;
  }> {
    const agents = s.filters.agent?.include?.filter((v) => /^\d+$/.test(v));
    if (agents && agents.length > 0 && s.from !== null && s.to !== null) return this.rawByAgents(s, agents);
    const cp: Param[] = [];
    const cw = this.callWhere(s, cp);
    const calls = await this.t.all<CallRow>(
      `SELECT ${CALL_COLUMNS.split(', ')
        .map((c) => `c.${c}`)
        .join(', ')} FROM calls c WHERE ${cw}`,
      cp,
    );
    // The edge of a range is often a few minutes with no call: one read then, not three.
    if (calls.length === 0) return { calls, hits: [], retried: new Set() };
    const hp: Param[] = [];
    const hw = this.callWhere(s, hp) + valueClauses('h.agent_id', s.filters.agent, hp, true);
    // The other two reads are independent: at once (PostgreSQL's pool runs them side by side).
    const hitsRead = this.t.all<{ call_id: string; agent_id: number; ring_secs: number; answered: number }>(
      `SELECT h.call_id, h.agent_id, h.ring_secs, h.answered FROM calls c JOIN call_hits h ON h.account_id = c.account_id AND h.call_id = c.call_id WHERE ${hw}`,
      hp,
    );
    const rp: Param[] = [];
    const rw = this.callWhere(s, rp);
    const retriedRead = calls.some((c) => c.answered_at === null)
      ? this.t.all<{ call_id: string }>(
          `SELECT c.call_id FROM calls c WHERE ${rw} AND c.answered_at IS NULL AND EXISTS (SELECT 1 FROM calls r WHERE r.account_id = c.account_id AND r.retry_of = c.call_id AND r.answered_at IS NOT NULL)`,
          rp,
        )
      : Promise.resolve([]);
    const [hits, retried] = await Promise.all([hitsRead, retriedRead]);
    return { calls, hits, retried: new Set(retried.map((r) => r.call_id)) };
  }
}
