import type { CallLeg, CallRecord, CallRecording } from '../calls/call-record.js';
import { localDateTime } from '../../time/zone.js';
import { callType, type CallType } from './call-type.js';

/** One element of `nHDetail`: one offer of the call to an agent (or a takeover), in order. */
export interface ReportLeg {
  nodeId: string;
  agentId: number;
  /** The agent's phone (null when the agent has none or is gone). */
  number: string | null;
  groupId: number | null;
  status: 'answered' | 'missed';
  totalRingDuration: number;
  talkDuration: number;
  totalHoldDuration: number;
  answerSTime: string | null;
  answerETime: string | null;
  recording: string | null;
}

export interface ReportRecording {
  nodeid: string | null;
  file: string;
  time: string;
}

/** The vendor's push-report shape (PRODUCT.md §9), field for field and in its order. */
export interface PushReport {
  callId: string;
  callStatus: 0 | 1 | 2 | 3;
  cType: CallType;
  DID: string | null;
  campId: number | string;
  userId: string;
  cNumber: string;
  ivrSTime: string;
  ivrETime: string;
  firstAnswerTime: string | null;
  lastHangupTime: string | null;
  ivrDuration: number;
  talkDuration: number;
  totalHoldDuration: number;
  masterAgent: number | null;
  masterAgentNumber: string | null;
  masterGroupId: number | null;
  firstAttended: 'agent' | null;
  recordings: ReportRecording[];
  nHDetail: ReportLeg[];
  callDisposition: string;
  retryOf: string | null;
  /** Campaign calls only (PRODUCT.md §13): the contact's record in its list, null once it is gone. */
  contactListData?: { clId: number; contact_id: number; number: string; name: string; timezone: string; fields: Record<string, unknown> } | null;
}

/** The report's scalar fields in report order: the CSV export's columns. */
export const SCALAR_FIELDS = [
  'callId',
  'callStatus',
  'cType',
  'DID',
  'campId',
  'userId',
  'cNumber',
  'ivrSTime',
  'ivrETime',
  'firstAnswerTime',
  'lastHangupTime',
  'ivrDuration',
  'talkDuration',
  'totalHoldDuration',
  'masterAgent',
  'masterAgentNumber',
  'masterGroupId',
  'firstAttended',
  'callDisposition',
  'retryOf',
] as const satisfies ReadonlyArray<keyof PushReport>;

export interface ReportInput {
  accountId: number;
  /** The account's time zone (IANA). */
  timezone: string;
  record: CallRecord;
  recordings: readonly CallRecording[];
  /** Agents' phones by id (an agent missing here has number null). */
  phones: ReadonlyMap<number, string>;
}

/** Durations are whole seconds, rounded (events may carry fractional times). */
const secs = (v: number) => Math.max(0, Math.round(v));

/** A connection of the call as the report sees it: stored legs, or for calls stored before legs were, rebuilt from the answered hits. */
function legsOf(r: CallRecord): CallLeg[] {
  if (r.legs && r.legs.length > 0) return r.legs;
  return r.hits
    .filter((h) => h.answered)
    .map((h, seq) => ({ seq, agentId: h.agentId, hitSeq: h.seq, answerAt: h.ringAt + h.ringSecs, answerEnd: r.endedAt, holdSecs: seq === 0 ? r.holdSecs : 0 }));
}

/** The leg a recording belongs to: the agent's leg running at its time (or that agent's last earlier one), else the leg connected then. */
function legOfRecording(legs: readonly CallLeg[], rec: CallRecording): CallLeg | undefined {
  const candidates = rec.agentId !== null ? legs.filter((l) => l.agentId === rec.agentId) : legs;
  if (candidates.length === 0) return undefined;
  const started = candidates.filter((l) => l.answerAt <= rec.at);
  return started[started.length - 1] ?? candidates[0];
}

/** Builds the push report of one finished call (pure: every figure from the stored call). */
export function buildReport(input: ReportInput): PushReport {
  const { record: r, timezone: tz } = input;
  const time = (t: number) => localDateTime(t, tz);
  const phone = (agentId: number) => input.phones.get(agentId) || null;
  const legs = legsOf(r);
  const answered = r.answeredAt !== null || legs.length > 0;
  const firstAnswer = r.answeredAt ?? legs[0]?.answerAt ?? null;
  const master = legs[0]?.agentId ?? r.answeredBy ?? null;

  // nHDetail: every offer, and every takeover (a connection without an offer), ordered by when it began.
  const byHit = new Map(legs.filter((l) => l.hitSeq !== null).map((l) => [l.hitSeq!, l]));
  const items: Array<{ at: number; order: number; agentId: number; ring: number; leg: CallLeg | undefined }> = [];
  for (const h of r.hits)
    items.push({ at: h.ringAt, order: items.length, agentId: h.agentId, ring: h.ringSecs, leg: h.answered ? byHit.get(h.seq) : undefined });
  for (const l of legs) if (l.hitSeq === null) items.push({ at: l.answerAt, order: items.length, agentId: l.agentId, ring: 0, leg: l });
  items.sort((a, b) => a.at - b.at || a.order - b.order);
  const nodeOfLeg = new Map<CallLeg, string>();
  const nHDetail: ReportLeg[] = items.map((it, i) => {
    const nodeId = `#${i + 1}`;
    if (it.leg) nodeOfLeg.set(it.leg, nodeId);
    const l = it.leg;
    return {
      nodeId,
      agentId: it.agentId,
      number: phone(it.agentId),
      groupId: r.groupId,
      status: l ? 'answered' : 'missed',
      totalRingDuration: secs(it.ring),
      talkDuration: l ? secs(l.answerEnd - l.answerAt - l.holdSecs) : 0,
      totalHoldDuration: l ? secs(l.holdSecs) : 0,
      answerSTime: l ? time(l.answerAt) : null,
      answerETime: l ? time(l.answerEnd) : null,
      recording: null,
    };
  });

  const recordings: ReportRecording[] = input.recordings.map((rec) => {
    const leg = legOfRecording(legs, rec);
    const nodeid = leg ? (nodeOfLeg.get(leg) ?? null) : null;
    const detail = nodeid ? nHDetail.find((d) => d.nodeId === nodeid) : undefined;
    if (detail && detail.recording === null) detail.recording = rec.path;
    return { nodeid, file: rec.path, time: time(rec.at) };
  });

  return {
    callId: r.callId,
    // 0 is a call that ended `failed`; the history's other failed calls (a dial's no_answer, busy, machine) ended before or after an offer like any other.
    callStatus: r.outcome === 'failed' && (r.endReason ?? 'failed') === 'failed' ? 0 : answered ? 3 : r.hits.length > 0 ? 2 : 1,
    cType: callType(r),
    DID: r.did,
    campId: r.direction === 'inbound' || r.campaignId === null ? 0 : /^[0-9]{1,15}$/.test(r.campaignId) ? Number(r.campaignId) : r.campaignId,
    userId: String(input.accountId),
    cNumber: r.caller ?? '',
    ivrSTime: time(r.queuedAt),
    ivrETime: time(r.endedAt),
    firstAnswerTime: firstAnswer !== null ? time(firstAnswer) : null,
    lastHangupTime: answered ? time(r.endedAt) : null,
    ivrDuration: secs(r.endedAt - r.queuedAt),
    talkDuration: firstAnswer !== null ? secs(r.endedAt - firstAnswer - r.holdSecs) : 0,
    totalHoldDuration: secs(r.holdSecs),
    masterAgent: answered ? master : null,
    masterAgentNumber: answered && master !== null ? phone(master) : null,
    masterGroupId: answered ? r.groupId : null,
    firstAttended: answered ? 'agent' : null,
    recordings,
    nHDetail,
    callDisposition: r.endReason ?? '',
    retryOf: r.retryOf,
  };
}
