import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTBOUND, OutboundModel, type DialCommand } from './outbound.js';

const dial = (n: number, extra: Partial<DialCommand> = {}): DialCommand => ({
  callId: `obd-${n}`,
  campaignId: '1',
  customer: `9198000${String(n).padStart(5, '0')}`,
  did: '918040001234',
  groupId: 5,
  ringSecs: 25,
  amd: true,
  machineAction: 'hangup',
  connectSecs: 2,
  ...extra,
});

describe('outbound model (simulate --outbound)', () => {
  it('answers dials in the configured shares: human, machine, busy, no answer', () => {
    const m = new OutboundModel(DEFAULT_OUTBOUND, [{ groupId: 5, agentIds: [1] }], { seed: 1, start: 0, runId: 't' });
    for (let i = 0; i < 10_000; i++) {
      m.originate(dial(i), i * 100);
      m.advanceTo(i * 100 + 99);
    }
    const s = m.stats;
    expect(s.dials).toBe(10_000);
    expect(s.human / s.dials).toBeCloseTo(0.25, 1);
    expect(s.machine / s.dials).toBeCloseTo(0.1, 1);
    expect(s.busy / s.dials).toBeCloseTo(0.05, 1);
    expect(s.human + s.machine + s.busy + s.noAnswer).toBe(s.dials);
  });

  it('predictive: a person is connected to a free agent; with none free within connectSecs, abandoned', () => {
    const cfg = { ...DEFAULT_OUTBOUND, humanShare: 1, machineShare: 0, busyShare: 0, answerMinSecs: 5, answerMaxSecs: 5 };
    const m = new OutboundModel(cfg, [{ groupId: 5, agentIds: [1] }], { seed: 2, start: 0, runId: 't' });
    m.originate(dial(1), 0);
    m.originate(dial(2), 0);
    const events = m.advanceTo(10);
    expect(events.filter((e) => e.type === 'call.answered').map((e) => [e.callId, e.agentId])).toEqual([['obd-1', 1]]);
    expect(events.filter((e) => e.type === 'call.ended').map((e) => [e.callId, e.reason])).toEqual([['obd-2', 'abandoned']]);
    expect(m.stats).toMatchObject({ human: 2, connected: 1, abandoned: 1 });
  });

  it('progressive: the reserved agent takes the call; an unanswered dial frees the agent at once', () => {
    const cfg = { ...DEFAULT_OUTBOUND, humanShare: 0, machineShare: 0, busyShare: 0 };
    const m = new OutboundModel(cfg, [{ groupId: 5, agentIds: [1, 2] }], { seed: 3, start: 0, runId: 't' });
    m.originate(dial(1, { agentId: 2 }), 0);
    expect(m.freeAgents).toBe(1);
    const events = m.advanceTo(30);
    expect(events.map((e) => [e.type, e.reason])).toEqual([['call.ended', 'no_answer']]);
    expect(m.freeAgents).toBe(2);
    const human = new OutboundModel({ ...cfg, humanShare: 1 }, [{ groupId: 5, agentIds: [1, 2] }], { seed: 3, start: 0, runId: 't' });
    human.originate(dial(1, { agentId: 2 }), 0);
    expect(human.advanceTo(30).find((e) => e.type === 'call.answered')).toMatchObject({ callId: 'obd-1', agentId: 2 });
  });
});
