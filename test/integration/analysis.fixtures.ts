import type { Queryable } from '../../src/db/types.js';
import { RollupSink } from '../../src/modules/analysis/rollup/rollup-sink.js';
import { CallHistoryService } from '../../src/modules/calls/call-history.service.js';
import type { CallHit, CallRecord } from '../../src/modules/calls/call-record.js';
import type { Harness } from '../helpers/harness.js';

/** 2026-01-10 00:00:00 UTC. */
export const D = 1768003200;

export interface HitSpec {
  agent: number;
  ring: number;
  answered?: boolean;
}

/** A finished call with sensible defaults; hits ring one after another from queuedAt. */
export function call(accountId: number, callId: string, at: number, o: Partial<CallRecord> & { offers?: HitSpec[] } = {}): CallRecord {
  const { offers = [], ...rest } = o;
  let t = at + 1;
  const hits: CallHit[] = offers.map((s, seq) => {
    const h = { seq, agentId: s.agent, ringAt: t, ringSecs: s.ring, answered: s.answered ?? false };
    t += s.ring;
    return h;
  });
  const answeredHit = hits.find((h) => h.answered);
  const answeredAt = rest.answeredAt !== undefined ? rest.answeredAt : answeredHit ? answeredHit.ringAt + answeredHit.ringSecs : null;
  return {
    accountId,
    callId,
    queuedAt: at,
    endedAt: at + 300,
    groupId: 55,
    did: '9100',
    campaignId: 'camp-a',
    direction: 'inbound',
    caller: '919800000000',
    retryOf: null,
    answeredBy: answeredHit?.agentId ?? null,
    answeredAt,
    talkSecs: 0,
    holdSecs: 0,
    waitSecs: 0,
    outcome: answeredAt !== null ? 'completed' : 'abandoned',
    hits,
    ...rest,
  };
}

/** The call history's writer as ingest builds it (rows, then the analysis roll-ups). */
export function callHistory(db: Queryable): CallHistoryService {
  return new CallHistoryService({ db, sink: new RollupSink() });
}

/** Stores finished calls one by one (as ingest batches of one call each), in one transaction. */
export function store(h: Harness, ...records: CallRecord[]): Promise<void> {
  return h.db.transaction(async (tx) => {
    for (const r of records) await callHistory(tx).record(tx, r.accountId, [r]);
  });
}

/** A late event's new version of a stored call. */
export function replace(h: Harness, old: CallRecord, next: CallRecord): Promise<void> {
  return h.db.transaction((tx) => callHistory(tx).replace(tx, old.accountId, old, next));
}

/** The worked example of docs/metrics.md. */
export function workedExample(accountId: number): CallRecord[] {
  return [
    // c1: missed by 101, answered by 102 (missed then answered elsewhere).
    call(accountId, 'c1', D + 10 * 3600, {
      offers: [
        { agent: 101, ring: 10 },
        { agent: 102, ring: 4, answered: true },
      ],
      talkSecs: 60,
      holdSecs: 20,
    }),
    // c2: missed by 101 and 103 (missed by all).
    call(accountId, 'c2', D + 11 * 3600, {
      offers: [
        { agent: 101, ring: 15 },
        { agent: 103, ring: 15 },
      ],
    }),
    // c3: retry of c2, answered by 103 after 2 s of talk (ghost).
    call(accountId, 'c3', D + 11 * 3600 + 1800, { retryOf: 'c2', offers: [{ agent: 103, ring: 6, answered: true }], talkSecs: 2 }),
    // c4: next day, group 56, answered by 101, 30 s on hold.
    call(accountId, 'c4', D + 86400 + 5 * 3600, {
      groupId: 56,
      did: '9200',
      campaignId: 'camp-b',
      offers: [{ agent: 101, ring: 2, answered: true }],
      talkSecs: 100,
      holdSecs: 30,
    }),
    // c5: abandoned in the queue, never offered: counts nowhere.
    call(accountId, 'c5', D + 12 * 3600),
    // c6: group 57, missed by 104, never retried.
    call(accountId, 'c6', D + 13 * 3600, { groupId: 57, did: '9300', campaignId: null, direction: 'outbound', offers: [{ agent: 104, ring: 8 }] }),
  ];
}

const Z = { FR_UC: 0, FR_CA: 0, FR_PM: 0, FR_CM: 0, FR_CAN_FR_PM_N: 0, GH_UC: 0 };
/** Hand-computed counters of the worked example, per agent (docs/metrics.md). */
export const BY_AGENT = {
  '101': { ...Z, TC: 3, AC: 1, MC: 2, UC: 3, CA: 1, PM: 1, CM: 1, FR_CAN_FR_PM_N: 1, avgRingTime: 9, avgHoldTime: 30 },
  '102': { ...Z, TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, avgRingTime: 4, avgHoldTime: 20 },
  '103': { ...Z, TC: 2, AC: 1, MC: 1, UC: 2, CA: 1, PM: 0, CM: 1, FR_UC: 1, FR_CA: 1, FR_CAN_FR_PM_N: 1, GH_UC: 1, avgRingTime: 10.5, avgHoldTime: 0 },
  '104': { ...Z, TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, PM: 0, CM: 1, avgRingTime: 8, avgHoldTime: null },
};
export const BY_GROUP = {
  '55': { ...Z, TC: 5, AC: 2, MC: 3, UC: 3, CA: 2, PM: 0, CM: 1, FR_UC: 1, FR_CA: 1, FR_CAN_FR_PM_N: 1, GH_UC: 1, avgRingTime: 10, avgHoldTime: 10 },
  '56': { ...Z, TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, avgRingTime: 2, avgHoldTime: 30 },
  '57': { ...Z, TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, PM: 0, CM: 1, avgRingTime: 8, avgHoldTime: null },
};
