/**
 * The live state tables' row shapes (live_agents, live_calls) and their
 * conversion to and from the in-memory shapes: shared by the ingest
 * repository and the read paths (Agent/live joins agents with live_agents).
 */
import type { BulkColumn } from '../../db/bulk.js';
import type { Param } from '../../db/types.js';
import type { AgentLive, CallLive, HitTuple, LegTuple } from './live.types.js';

/** Rows of live_agents / live_calls as stored (snake_case, 0/1 flags). */
export interface AgentRow {
  agent_id: number;
  logged_in: number;
  login_type: string | null;
  login_at: number | null;
  avail_since: number | null;
  break_reason: string | null;
  break_at: number | null;
  wrapup_at: number | null;
  ring_call: string | null;
  ring_at: number | null;
  call_id: string | null;
  call_at: number | null;
  sip_status: string;
  day_key: string;
  avail_secs: number;
  talk_secs: number;
  calls: number;
  last_ts: number;
  seq: number;
  last_call: string | null;
  wrap_call: string | null;
}

export interface CallRow {
  call_id: string;
  state: string;
  queued_at: number;
  group_id: number | null;
  did: string | null;
  caller: string | null;
  campaign_id: string | null;
  direction: string;
  retry_of: string | null;
  ring_agent: number | null;
  ring_at: number | null;
  agent_id: number | null;
  answered_at: number | null;
  agent_since: number | null;
  on_hold: number;
  hold_at: number | null;
  hold_secs: number;
  hits: string;
  last_ts: number;
  seq: number;
  legs: string;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export function agentFromRow(r: AgentRow): AgentLive {
  return {
    agentId: Number(r.agent_id),
    loggedIn: Number(r.logged_in) === 1,
    loginType: r.login_type,
    loginAt: num(r.login_at),
    availSince: num(r.avail_since),
    breakReason: r.break_reason,
    breakAt: num(r.break_at),
    wrapupAt: num(r.wrapup_at),
    ringCall: r.ring_call,
    ringAt: num(r.ring_at),
    callId: r.call_id,
    callAt: num(r.call_at),
    sipStatus: r.sip_status,
    dayKey: r.day_key,
    availSecs: Number(r.avail_secs),
    talkSecs: Number(r.talk_secs),
    calls: Number(r.calls),
    lastTs: Number(r.last_ts),
    seq: Number(r.seq),
    lastCall: r.last_call ?? null,
    wrapCall: r.wrap_call ?? null,
  };
}

export function callFromRow(r: CallRow): CallLive {
  return {
    callId: r.call_id,
    state: r.state as CallLive['state'],
    queuedAt: Number(r.queued_at),
    groupId: num(r.group_id),
    did: r.did,
    caller: r.caller,
    campaignId: r.campaign_id,
    direction: r.direction === 'outbound' ? 'outbound' : 'inbound',
    retryOf: r.retry_of,
    ringAgent: num(r.ring_agent),
    ringAt: num(r.ring_at),
    agentId: num(r.agent_id),
    answeredAt: num(r.answered_at),
    agentSince: num(r.agent_since),
    onHold: Number(r.on_hold) === 1,
    holdAt: num(r.hold_at),
    holdSecs: Number(r.hold_secs),
    hits: JSON.parse(r.hits) as HitTuple[],
    legs: JSON.parse(r.legs || '[]') as LegTuple[],
    lastTs: Number(r.last_ts),
    seq: Number(r.seq),
  };
}

export const AGENT_COLUMNS: BulkColumn[] = [
  { name: 'agent_id', pg: 'bigint' },
  { name: 'logged_in', pg: 'integer' },
  { name: 'login_type', pg: 'text' },
  { name: 'login_at', pg: 'double precision' },
  { name: 'avail_since', pg: 'double precision' },
  { name: 'break_reason', pg: 'text' },
  { name: 'break_at', pg: 'double precision' },
  { name: 'wrapup_at', pg: 'double precision' },
  { name: 'ring_call', pg: 'text' },
  { name: 'ring_at', pg: 'double precision' },
  { name: 'call_id', pg: 'text' },
  { name: 'call_at', pg: 'double precision' },
  { name: 'sip_status', pg: 'text' },
  { name: 'day_key', pg: 'text' },
  { name: 'avail_secs', pg: 'double precision' },
  { name: 'talk_secs', pg: 'double precision' },
  { name: 'calls', pg: 'integer' },
  { name: 'last_ts', pg: 'double precision' },
  { name: 'seq', pg: 'bigint' },
  { name: 'last_call', pg: 'text' },
  { name: 'wrap_call', pg: 'text' },
];

export const CALL_COLUMNS: BulkColumn[] = [
  { name: 'call_id', pg: 'text' },
  { name: 'state', pg: 'text' },
  { name: 'queued_at', pg: 'double precision' },
  { name: 'group_id', pg: 'bigint' },
  { name: 'did', pg: 'text' },
  { name: 'caller', pg: 'text' },
  { name: 'campaign_id', pg: 'text' },
  { name: 'direction', pg: 'text' },
  { name: 'retry_of', pg: 'text' },
  { name: 'ring_agent', pg: 'bigint' },
  { name: 'ring_at', pg: 'double precision' },
  { name: 'agent_id', pg: 'bigint' },
  { name: 'answered_at', pg: 'double precision' },
  { name: 'agent_since', pg: 'double precision' },
  { name: 'on_hold', pg: 'integer' },
  { name: 'hold_at', pg: 'double precision' },
  { name: 'hold_secs', pg: 'double precision' },
  { name: 'hits', pg: 'text' },
  { name: 'last_ts', pg: 'double precision' },
  { name: 'seq', pg: 'bigint' },
  { name: 'legs', pg: 'text' },
];

export function agentRow(a: AgentLive): Record<string, Param> {
  return {
    agent_id: a.agentId,
    logged_in: a.loggedIn ? 1 : 0,
    login_type: a.loginType,
    login_at: a.loginAt,
    avail_since: a.availSince,
    break_reason: a.breakReason,
    break_at: a.breakAt,
    wrapup_at: a.wrapupAt,
    ring_call: a.ringCall,
    ring_at: a.ringAt,
    call_id: a.callId,
    call_at: a.callAt,
    sip_status: a.sipStatus,
    day_key: a.dayKey,
    avail_secs: a.availSecs,
    talk_secs: a.talkSecs,
    calls: a.calls,
    last_ts: a.lastTs,
    seq: a.seq,
    last_call: a.lastCall,
    wrap_call: a.wrapCall,
  };
}

export function callRow(c: CallLive): Record<string, Param> {
  return {
    call_id: c.callId,
    state: c.state,
    queued_at: c.queuedAt,
    group_id: c.groupId,
    did: c.did,
    caller: c.caller,
    campaign_id: c.campaignId,
    direction: c.direction,
    retry_of: c.retryOf,
    ring_agent: c.ringAgent,
    ring_at: c.ringAt,
    agent_id: c.agentId,
    answered_at: c.answeredAt,
    agent_since: c.agentSince,
    on_hold: c.onHold ? 1 : 0,
    hold_at: c.holdAt,
    hold_secs: c.holdSecs,
    hits: JSON.stringify(c.hits),
    last_ts: c.lastTs,
    seq: c.seq,
    legs: JSON.stringify(c.legs),
  };
}

/** live_agents' columns (alias `l`), in AGENT_COLUMNS order: `agentFromValues` reads them by position. */
export const AGENT_SELECT = AGENT_COLUMNS.map((c) => `l.${c.name}`).join(', ');
/** live_calls' columns, in CALL_COLUMNS order: `callFromValues` reads them by position. */
export const CALL_SELECT = CALL_COLUMNS.map((c) => c.name).join(', ');

/**
 * `agentFromRow` of a row read as an array (`allValues`), AGENT_SELECT's
 * columns from position `at`. The ingest's working set is read this way:
 * better-sqlite3 builds a row object property by property from C++ (~1.7 ms
 * of a 500-event batch's ~18 ms CPU for its ~350 agent and call rows, perf
 * of bench/ingest-statements.ts), an array in one call. Kept equal to
 * `agentFromRow` by test/integration/live-rows.test.ts.
 */
export function agentFromValues(v: readonly unknown[], at: number): AgentLive {
  return {
    agentId: Number(v[at]),
    loggedIn: Number(v[at + 1]) === 1,
    loginType: v[at + 2] as string | null,
    loginAt: num(v[at + 3]),
    availSince: num(v[at + 4]),
    breakReason: v[at + 5] as string | null,
    breakAt: num(v[at + 6]),
    wrapupAt: num(v[at + 7]),
    ringCall: v[at + 8] as string | null,
    ringAt: num(v[at + 9]),
    callId: v[at + 10] as string | null,
    callAt: num(v[at + 11]),
    sipStatus: v[at + 12] as string,
    dayKey: v[at + 13] as string,
    availSecs: Number(v[at + 14]),
    talkSecs: Number(v[at + 15]),
    calls: Number(v[at + 16]),
    lastTs: Number(v[at + 17]),
    seq: Number(v[at + 18]),
    lastCall: (v[at + 19] as string | null | undefined) ?? null,
    wrapCall: (v[at + 20] as string | null | undefined) ?? null,
  };
}

/** `callFromRow` of a row read as an array, CALL_SELECT's columns from position `at` (see agentFromValues). */
export function callFromValues(v: readonly unknown[], at: number): CallLive {
  return {
    callId: v[at] as string,
    state: v[at + 1] as CallLive['state'],
    queuedAt: Number(v[at + 2]),
    groupId: num(v[at + 3]),
    did: v[at + 4] as string | null,
    caller: v[at + 5] as string | null,
    campaignId: v[at + 6] as string | null,
    direction: v[at + 7] === 'outbound' ? 'outbound' : 'inbound',
    retryOf: v[at + 8] as string | null,
    ringAgent: num(v[at + 9]),
    ringAt: num(v[at + 10]),
    agentId: num(v[at + 11]),
    answeredAt: num(v[at + 12]),
    agentSince: num(v[at + 13]),
    onHold: Number(v[at + 14]) === 1,
    holdAt: num(v[at + 15]),
    holdSecs: Number(v[at + 16]),
    hits: JSON.parse(v[at + 17] as string) as HitTuple[],
    legs: JSON.parse((v[at + 20] as string) || '[]') as LegTuple[],
    lastTs: Number(v[at + 18]),
    seq: Number(v[at + 19]),
  };
}
