import { describe, expect, it } from 'vitest';
import { TrafficModel } from './model.js';
import { agentSequenceProblems, callSequenceProblems } from './sequence.js';
import { DEFAULT_TRAFFIC, type RouteDecision, type RouteRequest, type SimEvent, type TrafficConfig } from './types.js';

const START = 1_800_000_000;

function config(over: Partial<TrafficConfig> = {}): TrafficConfig {
  const agents = (from: number) => Array.from({ length: 6 }, (_, i) => from + i);
  return {
    ...DEFAULT_TRAFFIC,
    ratePerMin: 6,
    loggedInShare: 1,
    routes: [
      { did: '18001000', groupId: 55 },
      { did: '18002000', groupId: 56, weight: 2 },
    ],
    groups: [
      { groupId: 55, agentIds: agents(100) },
      { groupId: 56, agentIds: agents(200) },
    ],
    callers: ['919800000001', '919800000002', '919800000003'],
    ...over,
  };
}

function run(cfg: TrafficConfig, hours: number, seed = 7, decide: (r: RouteRequest) => RouteDecision = () => ({ blocked: false })) {
  const model = new TrafficModel(cfg, { seed, start: START, runId: 'test', decide });
  const events: SimEvent[] = [];
  // Advance in steps, as the real-time runner does.
  for (let t = START; t <= START + hours * 3600; t += 7) events.push(...model.advanceTo(t).events);
  return { model, events, stats: model.stats };
}

const ofType = (events: SimEvent[], type: SimEvent['type']) => events.filter((e) => e.type === type);

describe('traffic model', () => {
  it('produces valid call and agent sequences in time order', () => {
    const { events, stats } = run(config(), 8);
    expect(stats.queued).toBeGreaterThan(2000);
    expect(callSequenceProblems(events)).toEqual([]);
    expect(agentSequenceProblems(events)).toEqual([]);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
  });

  it('is deterministic for a seed and differs between seeds', () => {
    const a = run(config(), 1, 42).events;
    const b = run(config(), 1, 42).events;
    const c = run(config(), 1, 43).events;
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('arrivals are Poisson at the configured rate, split by route weight', () => {
    const hours = 10;
    const { stats, events } = run(config({ ratePerMin: 10, retryShare: 0 }), hours);
    const expected = 10 * 60 * hours;
    // Within 4 standard deviations of a Poisson count.
    expect(Math.abs(stats.arrivals - expected)).toBeLessThan(4 * Math.sqrt(expected));
    const queued = ofType(events, 'call.queued');
    const share56 = queued.filter((e) => e.groupId === 56).length / queued.length;
    expect(share56).toBeGreaterThan(0.62);
    expect(share56).toBeLessThan(0.71);
    // Exponential gaps: the coefficient of variation of inter-arrival times is about 1.
    const times = queued.filter((e) => e.groupId === 55).map((e) => e.ts);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
    expect(sd / mean).toBeGreaterThan(0.85);
    expect(sd / mean).toBeLessThan(1.15);
  });

  it('misses, ghosts, holds and retries come out roughly as configured', () => {
    const { stats, events } = run(config({ missShare: 0.2, ghostShare: 0.1, holdShare: 0.3, retryShare: 0.5, patienceSecs: 60, ratePerMin: 8 }), 12);
    expect(stats.missedOffers / stats.offers).toBeGreaterThan(0.16);
    expect(stats.missedOffers / stats.offers).toBeLessThan(0.26);
    expect(stats.ghosts / stats.answered).toBeGreaterThan(0.07);
    expect(stats.ghosts / stats.answered).toBeLessThan(0.13);
    expect(stats.holds / (stats.answered - stats.ghosts)).toBeGreaterThan(0.2);
    const unsuccessful = stats.abandoned + stats.failed;
    expect(unsuccessful).toBeGreaterThan(100);
    expect(stats.retries / unsuccessful).toBeGreaterThan(0.42);
    expect(stats.retries / unsuccessful).toBeLessThan(0.58);
    // Every retry names a call that ended unanswered, with the same caller.
    const ended = new Map(ofType(events, 'call.ended').map((e) => [e.callId!, e.reason]));
    const queued = new Map(ofType(events, 'call.queued').map((e) => [e.callId!, e]));
    for (const r of ofType(events, 'call.queued').filter((e) => e.retryOf)) {
      expect(['abandoned', 'failed']).toContain(ended.get(r.retryOf!));
      expect(queued.get(r.retryOf!)!.caller).toBe(r.caller);
    }
    // Ghost calls talk at most 3 s; others at least 4 s.
    const answeredAt = new Map(ofType(events, 'call.answered').map((e) => [e.callId!, e.ts]));
    const talks = ofType(events, 'call.ended')
      .filter((e) => answeredAt.has(e.callId!))
      .map((e) => e.ts - answeredAt.get(e.callId!)!);
    const ghosts = talks.filter((t) => t <= 3).length;
    expect(ghosts).toBe(stats.ghosts);
  });

  it('a missed offer moves the call to another agent; too many offers end it as failed', () => {
    const { events, stats } = run(config({ missShare: 1, maxOffers: 3, retryShare: 0, patienceSecs: 1e9 }), 1);
    expect(stats.answered).toBe(0);
    expect(stats.failed).toBeGreaterThan(10);
    const byCall = new Map<string, number[]>();
    for (const e of ofType(events, 'call.ringing')) byCall.set(e.callId!, [...(byCall.get(e.callId!) ?? []), e.agentId!]);
    for (const [callId, agents] of byCall) {
      expect(agents.length, callId).toBeLessThanOrEqual(3);
      expect(new Set(agents).size, callId).toBe(agents.length);
    }
    expect(ofType(events, 'call.ended').every((e) => e.reason === 'failed')).toBe(true);
  });

  it('callers who lose patience abandon; with nobody logged in every call is abandoned', () => {
    const { stats, events } = run(config({ loggedInShare: 0, retryShare: 0, patienceSecs: 30 }), 2);
    expect(stats.queued).toBeGreaterThan(50);
    expect(stats.abandoned).toBe(
      stats.queued - ofType(events, 'call.queued').filter((q) => !events.some((e) => e.type === 'call.ended' && e.callId === q.callId)).length,
    );
    expect(ofType(events, 'call.ringing')).toHaveLength(0);
    expect(ofType(events, 'agent.login')).toHaveLength(0);
  });

  it('blocked callers are never queued and sticky agents get the first offer when free', () => {
    const blockedCaller = '919800000001';
    const { events, stats } = run(config({ unknownCallerShare: 0, breaksPerHour: 0, ratePerMin: 2 }), 6, 9, (r) =>
      r.caller === blockedCaller ? { blocked: true } : r.caller === '919800000002' ? { blocked: false, stickyAgentId: 203 } : { blocked: false },
    );
    expect(stats.blocked).toBeGreaterThan(50);
    expect(ofType(events, 'call.queued').some((e) => e.caller === blockedCaller)).toBe(false);
    const stickyCalls = new Set(
      ofType(events, 'call.queued')
        .filter((e) => e.caller === '919800000002')
        .map((e) => e.callId),
    );
    const firstOffer = new Map<string, number>();
    for (const e of ofType(events, 'call.ringing')) if (!firstOffer.has(e.callId!)) firstOffer.set(e.callId!, e.agentId!);
    const toSticky = [...stickyCalls].filter((id) => firstOffer.get(id!) === 203).length;
    const others = [...firstOffer.keys()].filter((id) => !stickyCalls.has(id));
    const othersTo203 = others.filter((id) => firstOffer.get(id) === 203).length;
    // Without stickiness agent 203 gets about 1 in 12 first offers; the sticky caller's calls mostly go to it.
    expect(othersTo203 / others.length).toBeLessThan(0.15);
    expect(toSticky / stickyCalls.size).toBeGreaterThan(0.3);
  });

  it('a share of calls is outbound (dialler campaign); outbound calls to DNC numbers are not placed', async () => {
    const dncCaller = '919800000003';
    const { events, stats } = run(config({ unknownCallerShare: 0, outboundShare: 0.3, retryShare: 0 }), 4, 13, (r) => ({
      blocked: false,
      dnc: r.caller === dncCaller ? -1 : 0,
    }));
    const queued = ofType(events, 'call.queued');
    const outbound = queued.filter((e) => e.direction === 'outbound');
    expect((outbound.length + stats.dncSkipped) / (queued.length + stats.dncSkipped)).toBeGreaterThan(0.24);
    expect((outbound.length + stats.dncSkipped) / (queued.length + stats.dncSkipped)).toBeLessThan(0.36);
    expect(outbound.every((e) => e.campaignId!.startsWith('dialler-'))).toBe(true);
    expect(outbound.some((e) => e.caller === dncCaller)).toBe(false);
    expect(stats.dncSkipped).toBeGreaterThan(10);
    // Inbound calls from a DNC number are still taken: DNC is about calling them.
    expect(queued.some((e) => e.direction === 'inbound' && e.caller === dncCaller)).toBe(true);
  });

  it('agents take breaks and come back; no offer reaches an agent on break', () => {
    const { events } = run(config({ breaksPerHour: 2, breakSecs: 120 }), 4);
    const starts = ofType(events, 'agent.break.start');
    expect(starts.length).toBeGreaterThan(50);
    expect(starts.every((e) => typeof e.reason === 'string' && e.reason.length > 0)).toBe(true);
    expect(agentSequenceProblems(events)).toEqual([]);
  });

  it('with asynchronous routing, arrivals wait for admit and events stay in time order', () => {
    const model = new TrafficModel(config({ ratePerMin: 30 }), { seed: 3, start: START, runId: 'async' });
    const events: SimEvent[] = [];
    let pending: RouteRequest[] = [];
    for (let t = START; t < START + 1800; t += 5) {
      const r = model.advanceTo(t);
      events.push(...r.events);
      // Decisions come back 2 s later, after the model moved on.
      for (const req of pending) {
        const a = model.admit(req.requestId, { blocked: false }, t);
        events.push(...a.events);
        pending.push(...a.routes);
      }
      pending = pending.filter(() => false).concat(r.routes);
    }
    expect(ofType(events, 'call.queued').length).toBeGreaterThan(700);
    expect(callSequenceProblems(events)).toEqual([]);
    expect(agentSequenceProblems(events)).toEqual([]);
  });
});

describe('traffic model shutdown', () => {
  it('ends live calls (also ringing and held ones) and logs every agent out, leaving valid sequences', () => {
    let held = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const { model, events } = run(config({ ratePerMin: 20, holdShare: 0.8, holdSecs: 100 }), 1, seed);
      expect(model.callsInProgress).toBeGreaterThan(0);
      const last = events[events.length - 1]!.ts;
      const tail = model.shutdown(last + 1);
      held += ofType(tail, 'call.unhold').length;
      const all = [...events, ...tail];
      expect(model.callsInProgress).toBe(0);
      expect(callSequenceProblems(all)).toEqual([]);
      expect(agentSequenceProblems(all)).toEqual([]);
      expect(ofType(all, 'agent.logout')).toHaveLength(ofType(all, 'agent.login').length);
      const queued = new Set(ofType(all, 'call.queued').map((e) => e.callId));
      const ended = new Set(ofType(all, 'call.ended').map((e) => e.callId));
      expect(ended).toEqual(queued);
    }
    expect(held).toBeGreaterThan(0);
  });
});
