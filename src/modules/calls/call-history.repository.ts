import type { TenantQueries } from '../../db/tenant.js';
import { bulkWrite, type BulkColumn } from '../../db/bulk.js';
import type { CallOutcome, CallRecord, RecentCallRow } from './call-record.js';

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
];
const HIT_COLUMNS: BulkColumn[] = [
  { name: 'call_id', pg: 'text' },
  { name: 'seq', pg: 'integer' },
  { name: 'agent_id', pg: 'bigint' },
  { name: 'ring_at', pg: 'double precision' },
  { name: 'ring_secs', pg: 'double precision' },
  { name: 'answered', pg: 'integer' },
];

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
      })),
      'update',
    );
    const hits = records.flatMap((r) =>
      r.hits.map((h) => ({ call_id: r.callId, seq: h.seq, agent_id: h.agentId, ring_at: h.ringAt, ring_secs: h.ringSecs, answered: h.answered ? 1 : 0 })),
    );
    await bulkWrite(this.t, 'call_hits', HIT_COLUMNS, ['call_id', 'seq'], hits, 'update');
  }

  /** Stored finished calls with their hits, by id. */
  async load(callIds: string[]): Promise<Map<string, CallRecord>> {
    const out = new Map<string, CallRecord>();
    for (const callId of callIds) {
      const c = await this.t.get<Record<string, unknown>>(
        `SELECT call_id, queued_at, ended_at, group_id, did, campaign_id, direction, caller, retry_of, answered_by, answered_at,
                talk_secs, hold_secs, wait_secs, outcome FROM calls WHERE account_id = $1 AND call_id = $2`,
        [callId],
      );
      if (!c) continue;
      const hits = await this.t.all<Record<string, unknown>>(
        'SELECT seq, agent_id, ring_at, ring_secs, answered FROM call_hits WHERE account_id = $1 AND call_id = $2 ORDER BY seq',
        [callId],
      );
      const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
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
        hits: hits.map((h) => ({
          seq: Number(h.seq),
          agentId: Number(h.agent_id),
          ringAt: Number(h.ring_at),
          ringSecs: Number(h.ring_secs),
          answered: Number(h.answered) === 1,
        })),
      });
    }
    return out;
  }

  /** Calls queued since `since` (Unix seconds) that have ended. */
  recentSince(since: number) {
    return this.t.all<RecentCallRow>(
      `SELECT c.call_id, c.queued_at, c.ended_at, c.group_id, c.did, c.campaign_id, c.direction, c.answered_by, c.answered_at,
              c.wait_secs, c.outcome,
              (SELECT h.agent_id FROM call_hits h WHERE h.account_id = c.account_id AND h.call_id = c.call_id ORDER BY h.seq DESC LIMIT 1) AS last_agent
       FROM calls c WHERE c.account_id = $1 AND c.queued_at >= $2`,
      [since],
    );
  }

  /** Ring seconds of the offers that ended within [since, now]: for the queue's mean ring time. */
  ringSecsSince(since: number) {
    return this.t.all<{ ring_secs: number }>('SELECT ring_secs FROM call_hits WHERE account_id = $1 AND ring_at >= $2', [since]);
  }
}
