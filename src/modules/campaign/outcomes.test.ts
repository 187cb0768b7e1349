import { describe, expect, it } from 'vitest';
import type { CallRow } from './dialer.repository.js';
import { outcomeOf, retryKey } from './outcomes.js';

const call = (over: Partial<CallRow> = {}): CallRow => ({
  call_id: 'obd-1',
  campaign_id: 1,
  contact_id: 1,
  number: '919800000001',
  agent_id: null,
  attempt: 1,
  retry_of: null,
  predictive: 1,
  dialled_at: 1000,
  connected_at: null,
  answered_by: null,
  agent_answered_at: null,
  ended_at: null,
  outcome: null,
  disposition: null,
  disposed_at: null,
  notes: null,
  ...over,
});

describe('outcomeOf', () => {
  it("takes the switch's dial reasons", () => {
    expect(outcomeOf(call(), 'no_answer', 'hangup')).toBe('no_answer');
    expect(outcomeOf(call(), 'busy', 'hangup')).toBe('busy');
    expect(outcomeOf(call(), 'failed', 'hangup')).toBe('failed');
    expect(outcomeOf(call({ connected_at: 1005, answered_by: 'machine' }), 'machine', 'hangup')).toBe('machine');
  });

  it('a person an agent took is answered (it waits for a disposition); one no agent took is abandoned', () => {
    expect(outcomeOf(call({ connected_at: 1005, answered_by: 'human', agent_answered_at: 1006 }), 'completed', 'hangup')).toBe('answered');
    expect(outcomeOf(call({ connected_at: 1005, answered_by: 'human' }), 'completed', 'hangup')).toBe('abandoned');
    expect(outcomeOf(call({ connected_at: 1005, answered_by: 'human' }), 'abandoned', 'hangup')).toBe('abandoned');
  });

  it("the service's own abandon (connectSecs passed) stands even if an agent took the call later", () => {
    expect(outcomeOf(call({ connected_at: 1005, answered_by: 'human', agent_answered_at: 1010, outcome: 'abandoned' }), 'completed', 'hangup')).toBe(
      'abandoned',
    );
  });

  it('a machine passed to an agent (machineAction agent) is answered; with hangup it is a machine', () => {
    const m = call({ connected_at: 1005, answered_by: 'machine', agent_answered_at: 1006 });
    expect(outcomeOf(m, 'completed', 'agent')).toBe('answered');
    expect(outcomeOf(m, 'completed', 'hangup')).toBe('machine');
  });

  it('a progressive call whose agent answered but the customer never did is no_answer', () => {
    expect(outcomeOf(call({ predictive: 0, agent_id: 3, agent_answered_at: 1002 }), 'completed', 'hangup')).toBe('no_answer');
  });
});

describe('retryKey', () => {
  it('maps outcomes to their retryDelays key; answered and dispositions do not retry', () => {
    expect(retryKey('no_answer')).toBe('noAnswer');
    expect(retryKey('abandoned')).toBe('abandoned');
    expect(retryKey('answered')).toBeNull();
    expect(retryKey('sale')).toBeNull();
  });
});
