/**
 * A finished call: the contract between the telephony-events module (which
 * writes one when a call ends) and the analysis module (which rolls it up).
 * Times are Unix seconds (fractional allowed).
 */
export interface CallHit {
  /** 0-based order of the offer within the call. */
  seq: number;
  agentId: number;
  ringAt: number;
  /** Seconds the offer rang (until answered, missed or the call ended). */
  ringSecs: number;
  answered: boolean;
}

/**
 * One connection of an agent to the caller (a call report's answered leg):
 * an answered offer (`hitSeq` its hit) or a takeover (`hitSeq` null). A leg
 * ends when the call ends or another agent takes it over.
 */
export interface CallLeg {
  /** 0-based order of the leg within the call. */
  seq: number;
  agentId: number;
  hitSeq: number | null;
  answerAt: number;
  answerEnd: number;
  /** Customer-on-hold seconds within this leg. */
  holdSecs: number;
}

/** A recording the switch reported for a call (`call.recording`); `path` is relative to RECORDINGS_DIR. */
export interface CallRecording {
  /** The event's sequence number: orders a call's recordings. */
  seq: number;
  agentId: number | null;
  path: string;
  at: number;
}

export type CallOutcome = 'completed' | 'abandoned' | 'failed';

/**
 * The prefix of the call ids `call/originate` issues (`ctc-<uuid>`): the switch
 * reports a click-to-call under that id, so an outbound call with it is CTC in
 * reports. Ids of that form sent by anyone else are read the same way.
 */
export const ORIGINATED_CALL_PREFIX = 'ctc-';

/** The kind of a finished call, as reports name it: inbound, outbound, or outbound placed by `call/originate`. */
export type CallKind = 'inbound' | 'outbound' | 'originated';

export function callKind(call: { callId: string; direction: string }): CallKind {
  if (call.direction !== 'outbound') return 'inbound';
  return call.callId.startsWith(ORIGINATED_CALL_PREFIX) ? 'originated' : 'outbound';
}

export interface CallRecord {
  accountId: number;
  callId: string;
  /** `call.queued` time: the call's time bucket. */
  queuedAt: number;
  endedAt: number;
  groupId: number | null;
  did: string | null;
  campaignId: string | null;
  direction: 'inbound' | 'outbound';
  caller: string | null;
  /** callId of the call this one retries. */
  retryOf: string | null;
  /** The agent who talked to the caller last (after a takeover: the taking-over agent). */
  answeredBy: number | null;
  answeredAt: number | null;
  talkSecs: number;
  /** Customer-on-hold seconds. */
  holdSecs: number;
  /** Seconds from queued to answered (or to the end when unanswered). */
  waitSecs: number;
  outcome: CallOutcome;
  hits: CallHit[];
  /** The `reason` of `call.ended` as given (null when none); absent on records written before call reports. */
  endReason?: string | null;
  /** The connected legs in order (call reports); absent: none stored. */
  legs?: CallLeg[];
}

/** A finished call of the trailing queue window (queue/count, queue/list). */
export interface RecentCallRow {
  call_id: string;
  queued_at: number;
  ended_at: number;
  group_id: number | null;
  did: string | null;
  campaign_id: string | null;
  direction: string;
  answered_by: number | null;
  answered_at: number | null;
  wait_secs: number;
  outcome: string;
  /** The last agent it was offered to. */
  last_agent: number | null;
}

/** A page of the call history (CallReport/list and its export): newest queued first, after the cursor. */
export interface CallPageFilter {
  /** Queued time range, Unix seconds, inclusive. */
  from?: number;
  to?: number;
  /** Calls offered to (or taken over by) this agent. */
  agentId?: number;
  groupId?: number;
  did?: string;
  caller?: string;
  /** Report callStatus: 0 failed, 1 ended before any offer, 2 offered but never answered, 3 answered. */
  status?: 0 | 1 | 2 | 3;
  /** Only these kinds (the report's cType, mapped by the caller). */
  kinds?: CallKind[];
  /** The last row of the previous page. */
  after?: { queuedAt: number; callId: string };
  limit: number;
}
