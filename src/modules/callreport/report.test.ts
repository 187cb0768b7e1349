import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../calls/call-record.js';
import { callType, kindsOf } from './call-type.js';
import { buildReport } from './report.js';

// 2025-11-24 16:00:00 UTC = 21:30:00 in Asia/Kolkata (+05:30).
const T = 1764000000;
const base: CallRecord = {
  accountId: 5,
  callId: 'c-1',
  queuedAt: T,
  endedAt: T + 100.4,
  groupId: 7,
  did: '801',
  campaignId: null,
  direction: 'inbound',
  caller: '9876',
  retryOf: 'c-0',
  answeredBy: 13,
  answeredAt: T + 20,
  talkSecs: 80.4,
  holdSecs: 15,
  waitSecs: 20,
  outcome: 'completed',
  endReason: 'completed',
  hits: [
    { seq: 0, agentId: 11, ringAt: T + 5, ringSecs: 10, answered: false },
    { seq: 1, agentId: 12, ringAt: T + 15, ringSecs: 5, answered: true },
  ],
  legs: [
    { seq: 0, agentId: 12, hitSeq: 1, answerAt: T + 20, answerEnd: T + 80, holdSecs: 12 },
    { seq: 1, agentId: 13, hitSeq: null, answerAt: T + 80, answerEnd: T + 100.4, holdSecs: 3 },
  ],
};
const phones = new Map([
  [11, '+15550011'],
  [12, '+15550012'],
]);

describe('buildReport', () => {
  it('an answered call with a missed offer, holds, a takeover and two recordings', () => {
    const r = buildReport({
      accountId: 5,
      timezone: 'Asia/Kolkata',
      record: base,
      phones,
      recordings: [
        { seq: 40, agentId: 12, path: '2025/11/24/c-1.wav', at: T + 100 },
        { seq: 41, agentId: null, path: 'c-1-b.wav', at: T + 90 },
      ],
    });
    expect(r).toEqual({
      callId: 'c-1',
      callStatus: 3,
      cType: 'IBD',
      DID: '801',
      campId: 0,
      userId: '5',
      cNumber: '9876',
      ivrSTime: '2025-11-24 21:30:00',
      ivrETime: '2025-11-24 21:31:40',
      firstAnswerTime: '2025-11-24 21:30:20',
      lastHangupTime: '2025-11-24 21:31:40',
      ivrDuration: 100, // 100.4 rounded
      talkDuration: 65, // 100.4 - 20 - 15 hold
      totalHoldDuration: 15,
      masterAgent: 12,
      masterAgentNumber: '+15550012',
      masterGroupId: 7,
      firstAttended: 'agent',
      recordings: [
        { nodeid: '#2', file: '2025/11/24/c-1.wav', time: '2025-11-24 21:31:40' },
        { nodeid: '#3', file: 'c-1-b.wav', time: '2025-11-24 21:31:30' },
      ],
      nHDetail: [
        {
          nodeId: '#1',
          agentId: 11,
          number: '+15550011',
          groupId: 7,
          status: 'missed',
          totalRingDuration: 10,
          talkDuration: 0,
          totalHoldDuration: 0,
          answerSTime: null,
          answerETime: null,
          recording: null,
        },
        {
          nodeId: '#2',
          agentId: 12,
          number: '+15550012',
          groupId: 7,
          status: 'answered',
          totalRingDuration: 5,
          talkDuration: 48, // 80 - 20 - 12 hold
          totalHoldDuration: 12,
          answerSTime: '2025-11-24 21:30:20',
          answerETime: '2025-11-24 21:31:20',
          recording: '2025/11/24/c-1.wav',
        },
        {
          nodeId: '#3',
          agentId: 13,
          number: null,
          groupId: 7,
          status: 'answered',
          totalRingDuration: 0,
          talkDuration: 17, // 100.4 - 80 - 3 hold
          totalHoldDuration: 3,
          answerSTime: '2025-11-24 21:31:20',
          answerETime: '2025-11-24 21:31:40',
          recording: 'c-1-b.wav',
        },
      ],
      callDisposition: 'completed',
      retryOf: 'c-0',
    });
  });

  it('an outbound call that ends before any offer: callStatus 1, campaign id as a number, empty disposition', () => {
    const r = buildReport({
      accountId: 5,
      timezone: 'UTC',
      phones,
      recordings: [],
      record: {
        ...base,
        direction: 'outbound',
        campaignId: '42',
        did: null,
        caller: null,
        retryOf: null,
        answeredBy: null,
        answeredAt: null,
        holdSecs: 0,
        endedAt: T + 7,
        outcome: 'abandoned',
        endReason: null,
        hits: [],
        legs: [],
      },
    });
    expect(r).toMatchObject({
      callStatus: 1,
      cType: 'OBD',
      DID: null,
      campId: 42,
      cNumber: '',
      ivrSTime: '2025-11-24 16:00:00',
      ivrETime: '2025-11-24 16:00:07',
      firstAnswerTime: null,
      lastHangupTime: null,
      ivrDuration: 7,
      talkDuration: 0,
      masterAgent: null,
      masterAgentNumber: null,
      masterGroupId: null,
      firstAttended: null,
      nHDetail: [],
      recordings: [],
      callDisposition: '',
      retryOf: null,
    });
  });

  it('offered but never answered is 2; failed is 0 whatever happened before', () => {
    const missed = {
      ...base,
      answeredBy: null,
      answeredAt: null,
      holdSecs: 0,
      outcome: 'abandoned' as const,
      endReason: 'abandoned',
      hits: [base.hits[0]!],
      legs: [],
    };
    const two = buildReport({ accountId: 5, timezone: 'UTC', phones, recordings: [], record: missed });
    expect(two.callStatus).toBe(2);
    expect(two.masterAgentNumber).toBeNull();
    expect(two.nHDetail.map((d) => d.status)).toEqual(['missed']);
    const failed = buildReport({ accountId: 5, timezone: 'UTC', phones, recordings: [], record: { ...missed, outcome: 'failed', endReason: 'failed' } });
    expect(failed.callStatus).toBe(0);
    expect(failed.callDisposition).toBe('failed');
  });

  it('a call stored before legs were: the answered offer becomes the leg up to the end', () => {
    const r = buildReport({ accountId: 5, timezone: 'UTC', phones, recordings: [], record: { ...base, legs: undefined, holdSecs: 4 } });
    expect(r.nHDetail[1]).toMatchObject({
      status: 'answered',
      answerSTime: '2025-11-24 16:00:20',
      answerETime: '2025-11-24 16:01:40',
      totalHoldDuration: 4,
      talkDuration: 76,
    });
    expect(r.masterAgent).toBe(12);
  });
});

describe('callType / kindsOf', () => {
  it('outbound is OBD, outbound under an id call/originate issued is CTC, anything else IBD; the list filter maps back', () => {
    expect(callType({ direction: 'outbound', callId: 'c-1' })).toBe('OBD');
    expect(callType({ direction: 'outbound', callId: 'ctc-3f6c1c9e' })).toBe('CTC');
    expect(callType({ direction: 'inbound', callId: 'ctc-3f6c1c9e' })).toBe('IBD');
    expect(callType({ direction: 'inbound', callId: 'c-2' })).toBe('IBD');
    expect(kindsOf(['IBD', 'OBD'])).toEqual(['inbound', 'outbound']);
    expect(kindsOf(['CTC'])).toEqual(['originated']);
  });
});
