import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { at, feed, report, utc } from './reports.fixtures.js';

/**
 * Property: for a random stream of valid events (agents logging in and out,
 * breaks with reasons, calls that abandon, are missed, answered, held,
 * wrapped up with or without a named call) in a random zone over a DST
 * change, report/queue and report/agent by day equal a brute-force
 * computation over the events (each second given to the local day Intl
 * names), the sum of the hours equals the total, and the answers put
 * together from local days (15m, hour, day) equal one read of the range.
 */
const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Europe/London'];
const START = utc(2026, 10, 31, 12); // New York's DST ends 2026-11-01; Lord Howe's starts 2026-10-04 (outside), London's ended 10-25.
const round2 = (x: number) => Math.round((x + Number.EPSILON) * 100) / 100;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Acc = Record<string, number>;
const add = (m: Map<string, Acc>, key: string, field: string, v: number) => {
  const a = m.get(key) ?? {};
  a[field] = (a[field] ?? 0) + v;
  m.set(key, a);
};

function dayKeyOf(tz: string) {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (ts: number) => f.format(new Date(ts * 1000));
}

/** A random valid event stream and its brute-force figures per local day. */
function scenario(seed: number, tz: string, agents: number[], g: number) {
  const r = rng(seed);
  const int = (a: number, b: number) => a + Math.floor(r() * (b - a + 1));
  const day = dayKeyOf(tz);
  const events: Array<Record<string, unknown>> = [];
  const queue = new Map<string, Acc>();
  const agentFig = new Map<string, Acc>();
  const st = new Map<number, { kind: string; since: number; reason: string; lastCall: string | null }>();
  let t = START;
  /** Time of agent a in its current state up to `to`, split at the local days. */
  const close = (a: number, to: number) => {
    const s = st.get(a);
    if (!s) return;
    for (let cur = s.since; cur < to;) {
      const next = Math.min(to, Math.floor(cur / 900) * 900 + 900);
      const k = `${a}|${day(cur)}`;
      add(agentFig, k, 'login', next - cur);
      add(agentFig, k, s.kind, next - cur);
      if (s.kind === 'break') add(agentFig, k, `b:${s.reason}`, next - cur);
      cur = next;
    }
    s.since = to;
  };
  const set = (a: number, kind: string, reason = '') => {
    close(a, t);
    st.get(a)!.kind = kind;
    st.get(a)!.reason = reason;
  };
  for (let step = 0; step < 40; step++) {
    t += int(1, 3600);
    const a = agents[int(0, agents.length - 1)]!;
    const s = st.get(a);
    const p = r();
    if (!s) {
      events.push(at(t, 'agent.login', { agentId: a }));
      st.set(a, { kind: 'available', since: t, reason: '', lastCall: null });
    } else if (s.kind === 'break') {
      events.push(at(t, 'agent.break.end', { agentId: a }));
      set(a, 'available');
    } else if (p < 0.1) {
      events.push(at(t, 'agent.logout', { agentId: a }));
      close(a, t);
      st.delete(a);
    } else if (p < 0.25) {
      const reason = ['lunch', 'coffee'][int(0, 1)]!;
      events.push(at(t, 'agent.break.start', { agentId: a, reason }));
      set(a, 'break', reason);
    } else {
      // A call of group g queued now; every figure of it in its queued day.
      const id = `p${seed}-${step}`;
      const qd = day(t);
      const q0 = t;
      add(queue, qd, 'offered', 1);
      events.push(at(t, 'call.queued', { callId: id, groupId: g }));
      const free = agents.filter((x) => st.get(x)?.kind === 'available');
      if (free.length === 0 || r() < 0.25) {
        t += int(0, 30);
        events.push(at(t, 'call.ended', { callId: id, reason: 'abandoned' }));
        const w = t - q0;
        add(queue, qd, w < 5 ? 'short' : 'abandoned', 1);
        if (w >= 5) add(queue, qd, 'abWait', w);
        const m = queue.get(qd)!;
        m.max = Math.max(m.max ?? 0, w);
        continue;
      }
      const ag = free[int(0, free.length - 1)]!;
      t += int(0, 10);
      events.push(at(t, 'call.ringing', { callId: id, agentId: ag }));
      set(ag, 'ringing');
      const ringDay = `${ag}|${day(t)}`;
      add(agentFig, ringDay, 'offered', 1);
      t += int(1, 40);
      if (r() < 0.2) {
        events.push(at(t, 'call.missed', { callId: id, agentId: ag }));
        set(ag, 'available');
        add(agentFig, ringDay, 'missed', 1);
        t += int(0, 20);
        events.push(at(t, 'call.ended', { callId: id, reason: 'abandoned' }));
        const w = t - q0;
        add(queue, qd, w < 5 ? 'short' : 'abandoned', 1);
        if (w >= 5) add(queue, qd, 'abWait', w);
        const m = queue.get(qd)!;
        m.max = Math.max(m.max ?? 0, w);
        continue;
      }
      events.push(at(t, 'call.answered', { callId: id, agentId: ag }));
      set(ag, 'talk');
      add(agentFig, ringDay, 'answered', 1);
      const w = t - q0;
      add(queue, qd, 'answered', 1);
      add(queue, qd, 'ansWait', w);
      if (w <= 20) add(queue, qd, 'within20', 1);
      let talk = int(1, 600);
      let hold = 0;
      if (r() < 0.4) {
        const before = int(0, talk);
        t += before;
        events.push(at(t, 'call.hold', { callId: id }));
        set(ag, 'hold');
        hold = int(1, 120);
        t += hold;
        events.push(at(t, 'call.unhold', { callId: id }));
        set(ag, 'talk');
        talk -= before;
      }
      t += talk;
      events.push(at(t, 'call.ended', { callId: id, reason: 'completed' }));
      set(ag, 'available');
      st.get(ag)!.lastCall = id;
      const m = queue.get(qd)!;
      m.max = Math.max(m.max ?? 0, w);
      add(queue, qd, 'talk', t - q0 - w - hold);
      add(queue, qd, 'hold', hold);
      if (r() < 0.6) {
        // Wrap-up, named or not; it may come after other events, but belongs to this call.
        const named = r() < 0.5;
        events.push(at(t, 'agent.wrapup.start', { agentId: ag, ...(named ? { callId: id } : {}) }));
        set(ag, 'wrap');
        const wr = int(1, 300);
        t += wr;
        events.push(at(t, 'agent.wrapup.end', { agentId: ag }));
        set(ag, 'available');
        add(queue, qd, 'wrap', wr);
      }
    }
  }
  t += 60;
  for (const a of agents) {
    if (!st.has(a)) continue;
    if (st.get(a)!.kind === 'break') {
      events.push(at(t, 'agent.break.end', { agentId: a }));
      set(a, 'available');
    }
    events.push(at(t, 'agent.logout', { agentId: a }));
    close(a, t);
  }
  return { events, queue, agentFig, end: t };
}

forEachDatabase('reports: property against a brute force over the events', (use) => {
  it('report/queue and report/agent by day equal the brute force; hours sum to the total', async () => {
    const h: Harness = use();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 30 }), fc.constantFrom(...ZONES), async (seed, tz) => {
        const t = await createTenant(h, { timezone: tz });
        const g = await createGroup(h, t);
        const agents = [(await createAgent(h, t, { group: g })).agentId, (await createAgent(h, t, { group: g })).agentId];
        const sc = scenario(seed, tz, agents, g);
        // The stream is not trivial: some call was offered and some agent time passed.
        expect([...sc.queue.values()].some((q) => (q.offered ?? 0) > 0) && [...sc.agentFig.values()].some((a) => (a.login ?? 0) > 0)).toBe(true);
        await feed(h, t.ssid, sc.events);
        const range = { ssid: t.ssid, from: START - 86400, to: sc.end + 86400 };
        const day = dayKeyOf(tz);
        const qDays = await report<Record<string, unknown>>(h, 'queue', { ...range, groupId: g, interval: 'day' });
        for (const row of qDays) {
          const b = sc.queue.get(day(row.start as number)) ?? {};
          const n = (k: string) => b[k] ?? 0;
          const base = n('offered') - n('short');
          const ans = n('answered');
          expect(row).toMatchObject({
            offered: n('offered'),
            answered: ans,
            abandoned: n('abandoned'),
            shortAbandoned: n('short'),
            answeredWithin: { '20': n('within20') },
            serviceLevel: { '20': base > 0 ? round2((n('within20') / base) * 100) : null },
            abandonRate: base > 0 ? round2((n('abandoned') / base) * 100) : null,
            asa: ans > 0 ? round2(n('ansWait') / ans) : null,
            maxWait: n('offered') > 0 ? n('max') : null,
            avgAbandonWait: n('abandoned') > 0 ? round2(n('abWait') / n('abandoned')) : null,
            avgTalk: ans > 0 ? round2(n('talk') / ans) : null,
            avgHold: ans > 0 ? round2(n('hold') / ans) : null,
            avgWrap: ans > 0 ? round2(n('wrap') / ans) : null,
          });
        }
        const aDays = await report<Record<string, number>>(h, 'agent', { ...range, interval: 'day' });
        for (const row of aDays) {
          const b = sc.agentFig.get(`${row.agentId}|${day(row.start!)}`) ?? {};
          const n = (k: string) => b[k] ?? 0;
          expect(row).toMatchObject({
            loginTime: n('login'),
            availableTime: n('available'),
            talkTime: n('talk'),
            holdTime: n('hold'),
            wrapTime: n('wrap'),
            breakTime: n('break'),
            offered: n('offered'),
            answered: n('answered'),
            missed: n('missed'),
          });
          expect(row.breaks).toEqual(
            expect.objectContaining(
              Object.fromEntries(
                Object.entries(b)
                  .filter(([k]) => k.startsWith('b:'))
                  .map(([k, v]) => [k.slice(2), v]),
              ),
            ),
          );
        }
        // The sum over the hours equals the total.
        const total = await report<Record<string, number>>(h, 'agent', { ...range, interval: 'total' });
        const hours = await report<Record<string, number>>(h, 'agent', { ...range, interval: 'hour' });
        for (const tot of total) {
          const mine = hours.filter((r) => r.agentId === tot.agentId);
          for (const k of ['loginTime', 'availableTime', 'talkTime', 'holdTime', 'wrapTime', 'breakTime', 'offered', 'answered', 'missed']) {
            expect(round2(mine.reduce((s, r) => s + r[k]!, 0))).toBe(tot[k]);
          }
        }
        // By 15 minutes, hour and day the answer is put together from local days (the range cut mid-day at both ends):
        // the same rows as one read of the whole range, asked twice (the second from the days kept).
        for (const interval of ['15m', 'hour', 'day'] as const) {
          const oneRead = await h.services.reports.queue(t.accountId, { ...range, interval });
          const oneReadAgents = await h.services.reports.agent(t.accountId, { ...range, interval });
          for (let ask = 0; ask < 2; ask++) {
            expect(await report(h, 'queue', { ...range, interval })).toEqual(oneRead);
            expect(await report(h, 'agent', { ...range, interval })).toEqual(oneReadAgents);
          }
        }
        const qTotal = await report<Record<string, number>>(h, 'queue', { ...range, groupId: g, interval: 'total' });
        const qHours = await report<Record<string, number>>(h, 'queue', { ...range, groupId: g, interval: 'hour' });
        for (const k of ['offered', 'answered', 'abandoned', 'shortAbandoned', 'takenOver', 'retries']) {
          expect(qHours.reduce((s, r) => s + r[k]!, 0)).toBe(qTotal[0]![k]);
        }
      }),
      { numRuns: 12 },
    );
  }, 300_000);
});
