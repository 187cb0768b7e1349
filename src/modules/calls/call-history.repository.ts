import type { TenantQueries } from '../../db/tenant.js';
import { bulkWrite, type BulkColumn } from '../../db/bulk.js';
import { inList } from '../../db/in-list.js';
import type { Param } from '../../db/types.js';
import {
  ORIGINATED_CALL_PREFIX,
  type CallKind,
  type CallOutcome,
  type CallPageFilter,
  type CallRecord,
  type CallRecording,
  type RecentCallRow,
} from './call-record.js';

const CALL_COLUMNS: BulkColumn[] = [
  { name: 'call_id', pg: 'text' },
  { name: 'queued_at', pg: 'double precision' },
  { name: 'ended_at', pg: 'double precision' },
  { name: 'group_id', pg: 'bigint' },
  { name: 'did', pg: 'text' },
  { name: 'campaign_id', pg: 'text' },
  { name: 'direction', pg: 'text' },
  { name: 'caller', pg: 'text' },
  { name: 'retry_of', pg: 'text' },
  { name: 'answered_by', pg: 'bigint' },
  { name: 'answered_at', pg: 'double precision' },
  { name: 'talk_secs', pg: 'double precision' },
  { name: 'hold_secs', pg: 'double precision' },
  { name: 'wait_secs', pg: 'double precision' },
  { name: 'outcome', pg: 'text' },
  { name: 'end_reason', pg: 'text' },
];
const LEG_COLUMNS: BulkColumn[] = [
  { name: 'call_id', pg: 'text' },
  { name: 'seq', pg: 'integer' },
  { name: 'agent_id', pg: 'bigint' },
  { name: 'hit_seq', pg: 'integer' },
  { name: 'answer_at', pg: 'double precision' },
  { name: 'answer_end', pg: 'double precision' },
  { name: 'hold_secs', pg: 'double precision' },
];
const RECORDING_COLUMNS: BulkColumn[] = [
  { name: 'call_id', pg: 'text' },
  { name: 'seq', pg: 'bigint' },
  { name: 'agent_id', pg: 'bigint' },
  { name: 'path', pg: 'text' },
  { name: 'at', pg: 'double precision' },
];
const HIT_COLUMNS: BulkColumn[] = [
  { name: 'call_id', pg: 'text' },
  { name: 'seq', pg: 'integer' },
  { name: 'agent_id', pg: 'bigint' },
  { name: 'ring_at', pg: 'double precision' },
  { name: 'ring_secs', pg: 'double precision' },
  { name: 'answered', pg: 'integer' },
];

/** callStatus (PRODUCT.md §9) as a condition on a stored call: 0 failed, 3 answered, 2 offered only, 1 neither. */
const OFFERED = 'EXISTS (SELECT 1 FROM call_hits h0 WHERE h0.account_id = c.account_id AND h0.call_id = c.call_id)';
// 0: ended with reason `failed`; an outbound dial's own reasons (no_answer, busy, machine: a failed outcome) are not 0 (callreport/report.ts).
const FAILED = "(c.outcome = 'failed' AND COALESCE(c.end_reason, 'failed') = 'failed')";
const STATUS_SQL: Record<0 | 1 | 2 | 3, string> = {
  0: FAILED,
  3: `NOT ${FAILED} AND c.answered_at IS NOT NULL`,
  2: `NOT ${FAILED} AND c.answered_at IS NULL AND ${OFFERED}`,
  1: `NOT ${FAILED} AND c.answered_at IS NULL AND NOT ${OFFERED}`,
};

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The `calls` / `call_hits` tables (contract: call-record.ts, migration 002). */
export class CallHistoryRepository {
  constructor(private readonly t: TenantQueries) {}

  async insert(records: CallRecord[]): Promise<void> {
    await bulkWrite(
      this.t,
      'calls',
      CALL_COLUMNS,
      ['call_id'],
      records.map((r) => ({
        call_id: r.callId,
        queued_at: r.queuedAt,
        ended_at: r.endedAt,
        group_id: r.groupId,
        did: r.did,
        campaign_id: r.campaignId,
        direction: r.direction,
        caller: r.caller,
        retry_of: r.retryOf,
        answered_by: r.answeredBy,
        answered_at: r.answeredAt,
        talk_secs: r.talkSecs,
        hold_secs: r.holdSecs,
        wait_secs: r.waitSecs,
        outcome: r.outcome,
        end_reason: r.endReason ?? null,
      })),
      'update',
    );
    const hits = records.flatMap((r) =>
      r.hits.map((h) => ({ call_id: r.callId, seq: h.seq, agent_id: h.agentId, ring_at: h.ringAt, ring_secs: h.ringSecs, answered: h.answered ? 1 : 0 })),
    );
    await bulkWrite(this.t, 'call_hits', HIT_COLUMNS, ['call_id', 'seq'], hits, 'update');
    const legs = records.flatMap((r) =>
      (r.legs ?? []).map((l) => ({
        call_id: r.callId,
        seq: l.seq,
        agent_id: l.agentId,
        hit_seq: l.hitSeq,
        answer_at: l.answerAt,
        answer_end: l.answerEnd,
        hold_secs: l.holdSecs,
      })),
    );
    await bulkWrite(this.t, 'call_legs', LEG_COLUMNS, ['call_id', 'seq'], legs, 'update');
  }

  /** Recordings of calls (live or finished): a repeat of one event's seq replaces it. */
  /** The hits of one call, before its new version is inserted (a late event replaced it). */
  async deleteHits(callId: string): Promise<void> {
    await this.t.run('DELETE FROM call_hits WHERE account_id = $1 AND call_id = $2', [callId]);
  }

  async insertRecordings(rows: Array<CallRecording & { callId: string }>): Promise<void> {
    await bulkWrite(
      this.t,
      'call_recordings',
      RECORDING_COLUMNS,
      ['call_id', 'seq'],
      rows.map((r) => ({ call_id: r.callId, seq: r.seq, agent_id: r.agentId, path: r.path, at: r.at })),
      'update',
    );
  }

  /** Stored finished calls with their hits and legs, by id (four statements whatever the number of calls). */
  async load(callIds: string[]): Promise<Map<string, CallRecord>> {
    const out = new Map<string, CallRecord>();
    if (callIds.length === 0) return out;
    const ids = inList(this.t, 'call_id', 2, callIds);
    const calls = await this.t.all<Record<string, unknown>>(
      `SELECT call_id, queued_at, ended_at, group_id, did, campaign_id, direction, caller, retry_of, answered_by, answered_at,
              talk_secs, hold_secs, wait_secs, outcome, end_reason FROM calls WHERE account_id = $1 AND ${ids.sql}`,
      [ids.param],
    );
    for (const c of calls) {
      const callId = String(c.call_id);
      out.set(callId, {
        accountId: this.t.accountId,
        callId,
        queuedAt: Number(c.queued_at),
        endedAt: Number(c.ended_at),
        groupId: n(c.group_id),
        did: (c.did as string | null) ?? null,
        campaignId: (c.campaign_id as string | null) ?? null,
        direction: c.direction === 'outbound' ? 'outbound' : 'inbound',
        caller: (c.caller as string | null) ?? null,
        retryOf: (c.retry_of as string | null) ?? null,
        answeredBy: n(c.answered_by),
        answeredAt: n(c.answered_at),
        talkSecs: Number(c.talk_secs),
        holdSecs: Number(c.hold_secs),
        waitSecs: Number(c.wait_secs),
        outcome: c.outcome as CallOutcome,
        endReason: (c.end_reason as string | null) ?? null,
        hits: [],
        legs: [],
      });
    }
    if (out.size === 0) return out;
    const hits = await this.t.all<Record<string, unknown>>(
      `SELECT call_id, seq, agent_id, ring_at, ring_secs, answered FROM call_hits WHERE account_id = $1 AND ${ids.sql} ORDER BY call_id, seq`,
      [ids.param],
    );
    for (const h of hits) {
      out.get(String(h.call_id))?.hits.push({
        seq: Number(h.seq),
        agentId: Number(h.agent_id),
        ringAt: Number(h.ring_at),
        ringSecs: Number(h.ring_secs),
        answered: Number(h.answered) === 1,
      });
    }
    const legs = await this.t.all<Record<string, unknown>>(
      `SELECT call_id, seq, agent_id, hit_seq, answer_at, answer_end, hold_secs FROM call_legs WHERE account_id = $1 AND ${ids.sql} ORDER BY call_id, seq`,
      [ids.param],
    );
    for (const l of legs) {
      out.get(String(l.call_id))?.legs?.push({
        seq: Number(l.seq),
        agentId: Number(l.agent_id),
        hitSeq: n(l.hit_seq),
        answerAt: Number(l.answer_at),
        answerEnd: Number(l.answer_end),
        holdSecs: Number(l.hold_secs),
      });
    }
    return out;
  }

  /**
   * Of `paths`, those another account has reported: a path belongs to the
   * first account that reports it, so a tenant cannot obtain a token for
   * another tenant's file by reporting its path (RECORDINGS_DIR is shared).
   */
  async pathsOfOtherAccounts(paths: string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    const list = inList(this.t, 'path', 2, paths);
    const rows = await this.t.all<{ path: string }>(`SELECT DISTINCT path FROM call_recordings WHERE account_id <> $1 AND ${list.sql}`, [list.param]);
    return new Set(rows.map((r) => String(r.path)));
  }

  /** Recordings of the given calls, each call's in the order they were reported. */
  async recordings(callIds: string[]): Promise<Map<string, CallRecording[]>> {
    const out = new Map<string, CallRecording[]>();
    if (callIds.length === 0) return out;
    const ids = inList(this.t, 'call_id', 2, callIds);
    const rows = await this.t.all<Record<string, unknown>>(
      `SELECT call_id, seq, agent_id, path, at FROM call_recordings WHERE account_id = $1 AND ${ids.sql} ORDER BY call_id, seq`,
      [ids.param],
    );
    for (const r of rows) {
      const list = out.get(String(r.call_id)) ?? [];
      list.push({ seq: Number(r.seq), agentId: n(r.agent_id), path: String(r.path), at: Number(r.at) });
      out.set(String(r.call_id), list);
    }
    return out;
  }

  /** One page of finished calls, newest queued first (CallReport/list, the export): ids and sort keys only. */
  async page(f: CallPageFilter): Promise<Array<{ call_id: string; queued_at: number }>> {
    const where: string[] = ['c.account_id = $1'];
    const params: Param[] = [];
    const p = (v: Param) => (params.push(v), `$${params.length + 1}`);
    if (f.from !== undefined) where.push(`c.queued_at >= ${p(f.from)}`);
    if (f.to !== undefined) where.push(`c.queued_at <= ${p(f.to)}`);
    if (f.groupId !== undefined) where.push(`c.group_id = ${p(f.groupId)}`);
    if (f.did !== undefined) where.push(`c.did = ${p(f.did)}`);
    if (f.caller !== undefined) where.push(`c.caller = ${p(f.caller)}`);
    if (f.kinds !== undefined) {
      if (f.kinds.length === 0) return [];
      // ORIGINATED_CALL_PREFIX: 'ctc-' (no LIKE wildcards in it). The parameter only when used: PostgreSQL refuses an untyped unused one.
      let like: string | undefined;
      const prefix = () => (like ??= p(`${ORIGINATED_CALL_PREFIX}%`));
      const sql: Record<CallKind, () => string> = {
        inbound: () => `c.direction <> 'outbound'`,
        outbound: () => `(c.direction = 'outbound' AND c.call_id NOT LIKE ${prefix()})`,
        originated: () => `(c.direction = 'outbound' AND c.call_id LIKE ${prefix()})`,
      };
      where.push(`(${f.kinds.map((k) => sql[k]()).join(' OR ')})`);
    }
    if (f.status !== undefined) where.push(STATUS_SQL[f.status]);
    if (f.agentId !== undefined) {
      const a = p(f.agentId);
      where.push(
        `(EXISTS (SELECT 1 FROM call_hits h WHERE h.account_id = c.account_id AND h.call_id = c.call_id AND h.agent_id = ${a})
          OR EXISTS (SELECT 1 FROM call_legs l WHERE l.account_id = c.account_id AND l.call_id = c.call_id AND l.agent_id = ${a}))`,
      );
    }
    if (f.after) where.push(`(c.queued_at < ${p(f.after.queuedAt)} OR (c.queued_at = $${params.length + 1} AND c.call_id < ${p(f.after.callId)}))`);
    // The limit is a parameter: one statement text (and one cached prepared statement) per filter combination.
    const limit = p(Math.trunc(f.limit));
    const rows = await this.t.all<{ call_id: string; queued_at: number }>(
      `SELECT c.call_id, c.queued_at FROM calls c WHERE ${where.join(' AND ')} ORDER BY c.queued_at DESC, c.call_id DESC LIMIT ${limit}`,
      params,
    );
    return rows.map((r) => ({ call_id: String(r.call_id), queued_at: Number(r.queued_at) }));
  }

  /** Calls queued since `since` (Unix seconds) that have ended; a campaign dial that never reached a queue (no group) was never queued. */
  recentSince(since: number) {
    return this.t.all<RecentCallRow>(
      `SELECT c.call_id, c.queued_at, c.ended_at, c.group_id, c.did, c.campaign_id, c.direction, c.answered_by, c.answered_at,
              c.wait_secs, c.outcome,
              (SELECT h.agent_id FROM call_hits h WHERE h.account_id = c.account_id AND h.call_id = c.call_id ORDER BY h.seq DESC LIMIT 1) AS last_agent
       FROM calls c WHERE c.account_id = $1 AND c.queued_at >= $2 AND NOT (c.group_id IS NULL AND c.call_id LIKE 'obd-%')`,
      [since],
    );
  }

  /** Ring seconds of the offers that ended within [since, now]: for the queue's mean ring time. */
  ringSecsSince(since: number) {
    return this.t.all<{ ring_secs: number }>('SELECT ring_secs FROM call_hits WHERE account_id = $1 AND ring_at >= $2', [since]);
  }
}
