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

export type CallOutcome = 'completed' | 'abandoned' | 'failed';

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
