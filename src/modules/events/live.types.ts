import type { CallOutcome } from '../calls/call-record.js';
/**
 * The in-memory shape of live state rows (tables live_agents, live_calls).
 * Times are Unix seconds (fractional allowed), as in the events.
 */
export interface AgentLive {
  agentId: number;
  loggedIn: boolean;
  loginType: string | null;
  loginAt: number | null;
  /** Start of the open "available" span (logged in, no break, no wrap-up, no call), else null. */
  availSince: number | null;
  breakReason: string | null;
  breakAt: number | null;
  wrapupAt: number | null;
  ringCall: string | null;
  ringAt: number | null;
  callId: string | null;
  callAt: number | null;
  sipStatus: string;
  /** The account-local day (YYYY-MM-DD) the counters below belong to. */
  dayKey: string;
  /** Closed available spans of that day (the open span is added at read time). */
  availSecs: number;
  talkSecs: number;
  calls: number;
  lastTs: number;
  seq: number;
  /** The call this agent answered last (reports: the call an unnamed wrap-up belongs to). */
  lastCall: string | null;
  /** The call the current (or last) wrap-up belongs to. */
  wrapCall: string | null;
}

/** One offer of a call to an agent: [agentId, ringAt, ringSecs or null while ringing, answered 0/1]. */
export type HitTuple = [number, number, number | null, number];

/**
 * One connection of an agent to a live call: [agentId, hit index (-1: a
 * takeover), connected at, left at or null while connected, hold seconds
 * within it]. Becomes a CallLeg of the call history when the call ends.
 */
export type LegTuple = [number, number, number, number | null, number];

export type CallState = 'queued' | 'ringing' | 'connected';

export interface CallLive {
  callId: string;
  state: CallState;
  queuedAt: number;
  groupId: number | null;
  did: string | null;
  caller: string | null;
  campaignId: string | null;
  direction: 'inbound' | 'outbound';
  retryOf: string | null;
  ringAgent: number | null;
  ringAt: number | null;
  /** The connected agent (after a takeover: the taking-over agent). */
  agentId: number | null;
  answeredAt: number | null;
  /** When the current agent was connected (differs from answeredAt after a takeover). */
  agentSince: number | null;
  onHold: boolean;
  holdAt: number | null;
  holdSecs: number;
  hits: HitTuple[];
  legs: LegTuple[];
  lastTs: number;
  seq: number;
}

/** What a `call.queued` event may name of its call (event-types.ts). */
export interface QueuedCallFields {
  groupId?: number | null;
  did?: string | null;
  caller?: string | null;
  campaignId?: string | null;
  direction?: 'inbound' | 'outbound';
  retryOf?: string | null;
}

/** A call as `call.queued` makes it at `ts`: what the event names, every other field at its empty value. */
export function queuedCall(callId: string, ts: number, seq: number, from: QueuedCallFields): CallLive {
  return {
    callId,
    state: 'queued',
    queuedAt: ts,
    groupId: from.groupId ?? null,
    did: from.did ?? null,
    caller: from.caller ?? null,
    campaignId: from.campaignId ?? null,
    direction: from.direction ?? 'inbound',
    retryOf: from.retryOf ?? null,
    ringAgent: null,
    ringAt: null,
    agentId: null,
    answeredAt: null,
    agentSince: null,
    onHold: false,
    holdAt: null,
    holdSecs: 0,
    hits: [],
    legs: [],
    lastTs: ts,
    seq,
  };
}

export function newAgent(agentId: number): AgentLive {
  return {
    agentId,
    loggedIn: false,
    loginType: null,
    loginAt: null,
    availSince: null,
    breakReason: null,
    breakAt: null,
    wrapupAt: null,
    ringCall: null,
    ringAt: null,
    callId: null,
    callAt: null,
    sipStatus: 'offline',
    dayKey: '',
    availSecs: 0,
    talkSecs: 0,
    calls: 0,
    lastTs: 0,
    seq: 0,
    lastCall: null,
    wrapCall: null,
  };
}

export type AgentStateName = 'offline' | 'available' | 'break' | 'wrapup' | 'ringing' | 'oncall';

/** The one state name an agent is shown with (on call wins over ringing, over wrap-up, over break). */
export function agentStateName(a: AgentLive): AgentStateName {
  if (!a.loggedIn) return 'offline';
  if (a.callId) return 'oncall';
  if (a.ringCall) return 'ringing';
  if (a.wrapupAt !== null) return 'wrapup';
  if (a.breakReason !== null) return 'break';
  return 'available';
}

/** Available for avT/stA: logged in, no break, no wrap-up, not on a call (ringing still counts). */
export function isAvailable(a: AgentLive): boolean {
  return a.loggedIn && a.breakReason === null && a.wrapupAt === null && a.callId === null;
}

/** When an agent entered the state it is shown with (null when offline). */
function agentSince(a: AgentLive, state: AgentStateName): number | null {
  return state === 'oncall'
    ? a.callAt
    : state === 'ringing'
      ? a.ringAt
      : state === 'wrapup'
        ? a.wrapupAt
        : state === 'break'
          ? a.breakAt
          : state === 'available'
            ? a.availSince
            : null;
}

/** The stream's `agent` message body. */
export function agentMessage(a: AgentLive) {
  const state = agentStateName(a);
  return {
    agentId: a.agentId,
    state,
    loggedIn: a.loggedIn,
    loginType: a.loginType,
    sipStatus: a.sipStatus,
    breakReason: a.breakReason,
    callId: a.callId,
    ringingCallId: a.ringCall,
    since: agentSince(a, state),
    seq: a.seq,
  };
}

/** The stream's `call` message body (also the live call element of queue/count and queue/list). */
export function callMessage(c: CallLive, ended?: { endedAt: number; outcome: string }) {
  return {
    callId: c.callId,
    state: ended ? ('ended' as const) : c.state,
    groupId: c.groupId,
    did: c.did,
    caller: c.caller,
    campaignId: c.campaignId,
    direction: c.direction,
    agentId: c.agentId,
    ringingAgentId: c.ringAgent,
    onHold: c.onHold,
    queuedAt: c.queuedAt,
    answeredAt: c.answeredAt,
    ...(ended ? { endedAt: ended.endedAt, outcome: ended.outcome } : {}),
    seq: c.seq,
  };
}

/*
 * How the change log (`live_changes.body`) stores the `agent` and `call` messages of an ingest
 * batch: each as the array of its message's values in the message's key order, not as the object
 * (`["agent",[12,"ringing",…]]`, not `["agent",{"agentId":12,…}]`). A 500-event batch's group is
 * ~47 KB instead of ~107 KB and its JSON.stringify about half as long (0.17 against 0.33 ms for
 * ~470 messages, a microbenchmark); the stream turns the values back into the object
 * (`messageFromValues`) before it sends them, so clients see what `agentMessage` / `callMessage`
 * answer (compared by src/modules/events/live.types.test.ts). Groups stored as objects (before
 * this, and the commands pushCommands stores) are sent as they are.
 */
const AGENT_MESSAGE_KEYS = ['agentId', 'state', 'loggedIn', 'loginType', 'sipStatus', 'breakReason', 'callId', 'ringingCallId', 'since', 'seq'] as const;
const CALL_MESSAGE_KEYS = [
  'callId',
  'state',
  'groupId',
  'did',
  'caller',
  'campaignId',
  'direction',
  'agentId',
  'ringingAgentId',
  'onHold',
  'queuedAt',
  'answeredAt',
  'seq',
] as const;
const ENDED_CALL_MESSAGE_KEYS = [...CALL_MESSAGE_KEYS.slice(0, -1), 'endedAt', 'outcome', 'seq'] as const;

/** agentMessage's values in its key order (the change log's form). */
export function agentMessageValues(a: AgentLive): unknown[] {
  const state = agentStateName(a);
  return [a.agentId, state, a.loggedIn, a.loginType, a.sipStatus, a.breakReason, a.callId, a.ringCall, agentSince(a, state), a.seq];
}

/** callMessage's values in its key order (the change log's form). */
export function callMessageValues(c: CallLive, ended?: { endedAt: number; outcome: string }): unknown[] {
  return ended
    ? [
        c.callId,
        'ended',
        c.groupId,
        c.did,
        c.caller,
        c.campaignId,
        c.direction,
        c.agentId,
        c.ringAgent,
        c.onHold,
        c.queuedAt,
        c.answeredAt,
        ended.endedAt,
        ended.outcome,
        c.seq,
      ]
    : [c.callId, c.state, c.groupId, c.did, c.caller, c.campaignId, c.direction, c.agentId, c.ringAgent, c.onHold, c.queuedAt, c.answeredAt, c.seq];
}

/**
 * A stored message's data as the stream sends it: the values of an `agent` or `call` message
 * (agentMessageValues, callMessageValues) as the object, in the same key order; anything else as it is.
 */
export function messageFromValues(event: string, data: unknown): unknown {
  if (!Array.isArray(data)) return data;
  const keys =
    event === 'agent'
      ? AGENT_MESSAGE_KEYS
      : event === 'call'
        ? data.length === ENDED_CALL_MESSAGE_KEYS.length
          ? ENDED_CALL_MESSAGE_KEYS
          : CALL_MESSAGE_KEYS
        : null;
  if (keys === null || keys.length !== data.length) return data;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) out[keys[i]!] = data[i] as unknown;
  return out;
}

/** A call the machine ended in this batch, and how. */
export interface EndedCall {
  call: CallLive;
  endedAt: number;
  outcome: CallOutcome;
  /** The `reason` of call.ended as given (null when none). */
  reason: string | null;
}
