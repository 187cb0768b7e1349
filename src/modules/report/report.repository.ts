import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';
import type { Segment } from './intervals.js';
import type { Param } from '../../db/types.js';
import { AGENT_SUMS } from './rollup/report-sinks.js';
import { QUEUE_SUMS } from './rollup/queue-rollup.js';

export type QueueRollupRow = Record<(typeof QUEUE_SUMS)[number] | 'bucket' | 'group_id' | 'max_wait', number | null>;
export type AgentRollupRow = Record<(typeof AGENT_SUMS)[number] | 'bucket' | 'agent_id', number>;

export interface AbandonedRow {
  call_id: string;
  caller: string | null;
  group_id: number | null;
  did: string | null;
  queued_at: number;
  ended_at: number;
  wait_secs: number;
}

/**
 * SQL of the reports: the roll-ups this module keeps (report_queue,
 * report_agent, report_agent_breaks), and, where a report needs them,
 * reads of tables other modules own, each one statement: the finished calls
 * (`calls`, calls/), the agents and their group mapping (`agents`,
 * `agent_groups`, agent/), the group ids (`groups`, group/).
 */
/** The first quarter hour of a row's interval within a segment (SQL; integers only, so inlined). */
function firstQuarter(seg: Segment): string {
  const n = (v: number) => String(Math.trunc(v));
  return seg.length === 0 ? n(seg.start) : `bucket - ((bucket + ${n(seg.shift)}) % ${n(seg.length)})`;
}

export class ReportRepository {
  constructor(private readonly t: TenantQueries) {}

  get accountId(): number {
    return this.t.accountId;
  }

  /**
   * report_queue summed per group and interval of a segment (k: the
   * interval's first quarter hour), only the columns named (the thresholds
   * asked for, not all kept).
   */
  queueSums(seg: Segment, groupId: number | null, cols: readonly string[]) {
    return this.t.all<QueueRollupRow & { k: number }>(
      `SELECT group_id, ${firstQuarter(seg)} AS k, MAX(max_wait) AS max_wait, ${cols.map((c) => `SUM(${c}) AS ${c}`).join(', ')}
       FROM report_queue WHERE account_id = $1 AND bucket >= $2 AND bucket < $3 ${groupId === null ? '' : 'AND group_id = $4'}
       GROUP BY group_id, k`,
      groupId === null ? [seg.start, seg.end] : [seg.start, seg.end, groupId],
    );
  }

  /** report_queue's offered, answered and handle time (talk + hold + wrap-up) per group and quarter hour of [from, to): staffing/plan's history. */
  queueVolumeRows(from: number, to: number, groupId: number | null) {
    return this.t.allValues(
      `SELECT group_id, bucket, offered, answered, talk_sum + hold_sum + wrap_sum FROM report_queue
       WHERE account_id = $1 AND bucket >= $2 AND bucket < $3 ${groupId === null ? '' : 'AND group_id = $4'}`,
      groupId === null ? [from, to] : [from, to, groupId],
    );
  }

  /** The same summed per group over [from, to). */
  queueVolumeTotals(from: number, to: number, groupId: number | null) {
    return this.t.allValues(
      `SELECT group_id, SUM(offered), SUM(answered), SUM(talk_sum + hold_sum + wrap_sum) FROM report_queue
       WHERE account_id = $1 AND bucket >= $2 AND bucket < $3 ${groupId === null ? '' : 'AND group_id = $4'} GROUP BY group_id`,
      groupId === null ? [from, to] : [from, to, groupId],
    );
  }

  /** report_agent summed per agent and interval of a segment. */
  agentSums(seg: Segment, agents: readonly number[] | null) {
    const only = agents === null ? null : inList(this.t, 'agent_id', 4, agents);
    return this.t.all<AgentRollupRow & { k: number }>(
      `SELECT agent_id, ${firstQuarter(seg)} AS k, ${AGENT_SUMS.map((c) => `SUM(${c}) AS ${c}`).join(', ')}
       FROM report_agent WHERE account_id = $1 AND bucket >= $2 AND bucket < $3 ${only ? `AND ${only.sql}` : ''} GROUP BY agent_id, k`,
      only ? [seg.start, seg.end, only.param] : [seg.start, seg.end],
    );
  }

  /** report_agent_day rows of local days starting in [from, to), kept in zone `tz`. */
  agentDays(tz: string, from: number, to: number) {
    return this.t.all<AgentRollupRow & { day_start: number }>(
      `SELECT agent_id, day_start, ${AGENT_SUMS.join(', ')} FROM report_agent_day WHERE account_id = $1 AND day_start >= $2 AND day_start < $3 AND tz = $4`,
      [from, to, tz],
    );
  }

  breakDays(tz: string, from: number, to: number) {
    return this.t.all<{ day_start: number; agent_id: number; reason: string; secs: number }>(
      'SELECT agent_id, day_start, reason, secs FROM report_agent_breaks_day WHERE account_id = $1 AND day_start >= $2 AND day_start < $3 AND tz = $4',
      [from, to, tz],
    );
  }

  /** True when some agent time around [from, to) was kept per day of another zone (the account's zone changed). */
  async otherZoneDays(tz: string, from: number, to: number): Promise<boolean> {
    // A day of another zone may start up to 26 hours from one of this zone.
    const row = await this.t.get('SELECT 1 AS x FROM report_agent_day WHERE account_id = $1 AND day_start >= $2 AND day_start < $3 AND tz <> $4 LIMIT 1', [
      from - 2 * 86400,
      to + 2 * 86400,
      tz,
    ]);
    return row !== undefined;
  }

  breakSums(seg: Segment) {
    return this.t.all<{ k: number; agent_id: number; reason: string; secs: number }>(
      `SELECT agent_id, reason, ${firstQuarter(seg)} AS k, SUM(secs) AS secs
       FROM report_agent_breaks WHERE account_id = $1 AND bucket >= $2 AND bucket < $3 GROUP BY agent_id, reason, k`,
      [seg.start, seg.end],
    );
  }

  queueRows(from: number, to: number, groupId: number | null) {
    return this.t.all<QueueRollupRow>(
      `SELECT bucket, group_id, max_wait, ${QUEUE_SUMS.join(', ')} FROM report_queue
       WHERE account_id = $1 AND bucket >= $2 AND bucket < $3 ${groupId === null ? '' : 'AND group_id = $4'}`,
      groupId === null ? [from, to] : [from, to, groupId],
    );
  }

  agentRows(from: number, to: number) {
    return this.t.all<AgentRollupRow>(
      `SELECT bucket, agent_id, ${AGENT_SUMS.join(', ')} FROM report_agent WHERE account_id = $1 AND bucket >= $2 AND bucket < $3`,
      [from, to],
    );
  }

  breakRows(from: number, to: number) {
    return this.t.all<{ bucket: number; agent_id: number; reason: string; secs: number }>(
      'SELECT bucket, agent_id, reason, secs FROM report_agent_breaks WHERE account_id = $1 AND bucket >= $2 AND bucket < $3',
      [from, to],
    );
  }

  /** Finished calls queued in [from, to) with a group: the exact path for thresholds the roll-up does not keep. */
  callWaits(from: number, to: number, groupId: number | null) {
    return this.t.all<{ group_id: number; queued_at: number; wait_secs: number; answered_at: number | null; outcome: string }>(
      `SELECT group_id, queued_at, wait_secs, answered_at, outcome FROM calls
       WHERE account_id = $1 AND queued_at >= $2 AND queued_at < $3 AND group_id IS NOT NULL ${groupId === null ? '' : 'AND group_id = $4'}`,
      groupId === null ? [from, to] : [from, to, groupId],
    );
  }

  /** Change marks of the UTC days fromDay…toDay (report_versions; a day never marked has no row). */
  async marks(fromDay: number, toDay: number): Promise<Map<number, number>> {
    const rows = await this.t.allValues('SELECT utc_day, version FROM report_versions WHERE account_id = $1 AND utc_day >= $2 AND utc_day <= $3', [
      fromDay,
      toDay,
    ]);
    return new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));
  }

  /** The account's groups (`groups`, group/): every report/queue without groupId has their rows. */
  async groupIds(): Promise<number[]> {
    return (await this.t.allValues('SELECT group_id FROM groups WHERE account_id = $1 ORDER BY group_id')).map((r) => Number(r[0]));
  }

  /** Agents of the account (not deleted), or those mapped to a group. */
  async agentIds(groupId: number | null): Promise<number[]> {
    const rows =
      groupId === null
        ? await this.t.all<{ id: number }>('SELECT id FROM agents WHERE account_id = $1 AND is_deleted = 0 ORDER BY id')
        : await this.t.all<{ id: number }>(
            `SELECT a.id FROM agents a JOIN agent_groups g ON g.account_id = a.account_id AND g.agent_id = a.id
             WHERE a.account_id = $1 AND g.group_id = $2 AND a.is_deleted = 0 ORDER BY a.id`,
            [groupId],
          );
    return rows.map((r) => Number(r.id));
  }

  /** [group, agent] of every agent (not deleted) mapped to a group. */
  groupMembers() {
    return this.t.allValues(
      `SELECT g.group_id, a.id FROM agents a JOIN agent_groups g ON g.account_id = a.account_id AND g.agent_id = a.id
       WHERE a.account_id = $1 AND a.is_deleted = 0`,
    );
  }

  /** [agent, quarter hour, login seconds] of report_agent in [from, to) (staffing/plan's agents logged in). */
  agentLoginRows(from: number, to: number) {
    return this.t.allValues('SELECT agent_id, bucket, login FROM report_agent WHERE account_id = $1 AND bucket >= $2 AND bucket < $3 AND login > 0', [
      from,
      to,
    ]);
  }

  async agentExists(agentId: number): Promise<boolean> {
    return (await this.t.get('SELECT id FROM agents WHERE account_id = $1 AND id = $2 AND is_deleted = 0', [agentId])) !== undefined;
  }

  /** Abandons that were not short, newest first, after the cursor. */
  abandoned(q: {
    from: number;
    to: number;
    shortAbandon: number;
    groupId: number | null;
    did: string | null;
    after: { queuedAt: number; callId: string } | null;
    limit: number;
  }) {
    const params: Param[] = [q.from, q.to, q.shortAbandon];
    const where = [`account_id = $1`, `outcome = 'abandoned'`, 'answered_at IS NULL', 'queued_at >= $2', 'queued_at <= $3', 'wait_secs >= $4'];
    if (q.groupId !== null) where.push(`group_id = $${params.push(q.groupId) + 1}`);
    if (q.did !== null) where.push(`did = $${params.push(q.did) + 1}`);
    if (q.after) {
      const a = params.push(q.after.queuedAt) + 1;
      const b = params.push(q.after.callId) + 1;
      where.push(`(queued_at < $${a} OR (queued_at = $${a} AND call_id < $${b}))`);
    }
    return this.t.all<AbandonedRow>(
      `SELECT call_id, caller, group_id, did, queued_at, ended_at, wait_secs FROM calls WHERE ${where.join(' AND ')}
       ORDER BY queued_at DESC, call_id DESC LIMIT ${q.limit + 1}`,
      params,
    );
  }

  /** The first finished call of `caller` (either direction) queued in (after, until]. */
  firstCallOf(caller: string, after: number, until: number) {
    return this.t.get<{ call_id: string; queued_at: number; answered_at: number | null }>(
      `SELECT call_id, queued_at, answered_at FROM calls WHERE account_id = $1 AND caller = $2 AND queued_at > $3 AND queued_at <= $4
       ORDER BY queued_at, call_id LIMIT 1`,
      [caller, after, until],
    );
  }
}
