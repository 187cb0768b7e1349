import { describe, expect, it } from 'vitest';
import { CallcenterConfigError, parseAgentList, parseMemberList, parseQueueList, parseTierList } from './callcenter-config.js';

describe('callcenter_config answers', () => {
  it('reads agent list by column name, up to the trailing +OK', () => {
    const text =
      'name|instance_id|uuid|type|contact|status|state|max_no_answer|wrap_up_time|reject_delay_time|busy_delay_time|no_answer_delay_time|last_bridge_start|last_bridge_end|last_offered_call|last_status_change|no_answer_count|calls_answered|talk_time|ready_time|external_calls_count\n' +
      '5001@default|single_box||callback|[leg_timeout=10]user/5001@default|Available|Waiting|3|10|10|60|0|0|0|0|1795000000|0|0|0|0|0\n' +
      '5002@default|single_box||callback|user/5002@default|On Break|Idle|3|10|10|60|0|0|0|0|1795000000|0|0|0|0|0\n' +
      '+OK\n';
    expect(parseAgentList(text)).toEqual([
      { name: '5001@default', status: 'Available', state: 'Waiting' },
      { name: '5002@default', status: 'On Break', state: 'Idle' },
    ]);
  });

  it('reads members of a queue', () => {
    const text =
      'queue|instance_id|uuid|session_uuid|cid_number|cid_name|system_epoch|joined_epoch|rejoined_epoch|bridge_epoch|abandoned_epoch|base_score|skill_score|serving_agent|serving_system|state\n' +
      'support@default|single_box|m-1|s-1|4930123|Zoe|1795000000|1795000000|0|0|0|0|0|||Waiting\n' +
      '+OK\n';
    expect(parseMemberList(text)).toEqual([
      { queue: 'support@default', uuid: 'm-1', sessionUuid: 's-1', cidNumber: '4930123', state: 'Waiting', servingAgent: '', joinedEpoch: 1795000000 },
    ]);
  });

  it('reads an empty table (header and +OK only), tiers and queues', () => {
    expect(parseMemberList('queue|instance_id|uuid|session_uuid|state\n+OK\n')).toEqual([]);
    expect(parseTierList('queue|agent|state|level|position\nsupport@default|5001@default|Ready|1|1\n+OK\n')).toEqual([
      { queue: 'support@default', agent: '5001@default', state: 'Ready' },
    ]);
    expect(parseQueueList('name|strategy|moh_sound\nsupport@default|longest-idle-agent|local_stream://moh\n+OK\n')).toEqual(['support@default']);
  });

  it('fails on -ERR and on an answer without +OK', () => {
    expect(() => parseMemberList('-ERR Queue not found!\n')).toThrow(CallcenterConfigError);
    expect(() => parseAgentList('name|status\n5001@default|Available\n')).toThrow(/without \+OK/);
  });
});
