import { describe, expect, it } from 'vitest';
import { apiSucceeded, campaignOriginateCommand, hangupCauseReason, originateCommand, takeoverCommand, UnsafeValueError } from './commands.js';

describe('FreeSWITCH commands', () => {
  it('takeover is uuid_transfer of the caller channel to the extension', () => {
    expect(takeoverCommand('9b1c3a5e-0f7d-4c2e-a1b3-1d2e3f4a5b6c', '5002', 'default')).toBe(
      'uuid_transfer 9b1c3a5e-0f7d-4c2e-a1b3-1d2e3f4a5b6c 5002 XML default',
    );
  });

  it('originate rings the agent with the call id and the DID as caller id', () => {
    expect(originateCommand({ callId: 'ctc-42', extension: '5001', customer: '4930123456', did: '18005550100', context: 'default' })).toBe(
      'originate {cc_call_id=ctc-42,origination_caller_id_number=18005550100}user/5001 4930123456 XML default',
    );
    expect(originateCommand({ callId: 'ctc-43', extension: '5001', customer: '+4930123456', context: 'public' })).toBe(
      'originate {cc_call_id=ctc-43}user/5001 +4930123456 XML public',
    );
  });

  it('refuses values that would change the command', () => {
    expect(() => takeoverCommand('x y', '5002', 'default')).toThrow(UnsafeValueError);
    expect(() => originateCommand({ callId: 'a}b', extension: '5001', customer: '1', context: 'default' })).toThrow(UnsafeValueError);
    expect(() => originateCommand({ callId: 'a', extension: '5001', customer: '1,absolute_codec_string=PCMU', context: 'default' })).toThrow(UnsafeValueError);
  });

  it('reads +OK / -ERR answers', () => {
    expect(apiSucceeded('+OK\n')).toBe(true);
    expect(apiSucceeded('+OK 6b0c…\n')).toBe(true);
    expect(apiSucceeded('-ERR NO_ANSWER\n')).toBe(false);
  });

  it('a campaign dial: -ERR hangup causes → §13 end reasons', () => {
    expect(
      [
        '-ERR NO_ANSWER\n',
        '-ERR NO_USER_RESPONSE',
        '-ERR ALLOTTED_TIMEOUT',
        '-ERR ORIGINATOR_CANCEL',
        '-ERR USER_BUSY',
        '-ERR CALL_REJECTED',
        '-ERR NORMAL_TEMPORARY_FAILURE',
        'garbage',
      ].map(hangupCauseReason),
    ).toEqual(['no_answer', 'no_answer', 'no_answer', 'no_answer', 'busy', 'failed', 'failed', 'failed']);
  });

  it('a campaign dial refuses a customer number that would change the command', () => {
    const o = {
      callId: 'obd-1',
      campaignId: '7',
      groupId: 3,
      queue: 'support',
      did: null,
      ringSecs: 20,
      amd: false,
      machineAction: 'hangup',
      outboundContext: 'default',
      campaignContext: 'cc_campaign',
    };
    expect(campaignOriginateCommand({ ...o, customer: '4930123456' })).toBe(
      'originate {cc_call_id=obd-1,cc_campaign_id=7,cc_group_id=3,cc_queue=support,cc_amd=0,cc_machine_action=hangup,originate_timeout=20,ignore_early_media=true}loopback/4930123456/default campaign XML cc_campaign',
    );
    expect(() => campaignOriginateCommand({ ...o, customer: '123,cc_amd=1}' })).toThrow(UnsafeValueError);
  });
});
