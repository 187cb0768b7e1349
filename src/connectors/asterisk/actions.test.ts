import { describe, expect, it } from 'vitest';
import { campaignOriginateAction, originateFailureReason } from './actions.js';

describe('Asterisk campaign dial actions', () => {
  it('OriginateResponse Reason → §13 end reason: 1 and 3 no_answer, 5 busy, 0, 8 and anything else failed', () => {
    expect(['0', '1', '3', '5', '8', '2', undefined].map(originateFailureReason)).toEqual([
      'failed',
      'no_answer',
      'no_answer',
      'busy',
      'failed',
      'failed',
      'failed',
    ]);
  });

  it('a predictive dial names no agent; the caller id is left out without a DID', () => {
    const cmd = {
      callId: 'obd-1',
      agentId: undefined as unknown as number,
      agentNumber: '',
      customer: '919800000001',
      did: null,
      campaignId: '7',
      groupId: 3,
      ringSecs: 20,
      amd: false,
      ts: 0,
      seq: 1,
    };
    expect(campaignOriginateAction(cmd, { queue: 'sales' }, 'trunk-out', 'cc-campaign')).toEqual([
      ['Action', 'Originate'],
      ['ActionID', 'cc-originate-obd-1'],
      ['Channel', 'Local/919800000001@trunk-out'],
      ['Context', 'cc-campaign'],
      ['Exten', 's'],
      ['Priority', '1'],
      ['Timeout', '20000'],
      ['Async', 'true'],
      ['Variable', 'CC_CALL_ID=obd-1,CC_CAMPAIGN_ID=7,CC_GROUP_ID=3,CC_QUEUE=sales,CC_AMD=0,CC_MACHINE_ACTION=hangup'],
    ]);
  });
});
