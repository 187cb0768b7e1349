import { beforeAll, expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { advance, ev, ingestOk, nowSec } from './events.fixtures.js';

/** One scenario end to end: telephony events → call history → roll-ups → analysis/hits. */
forEachDatabase('analysis/hits over calls reported through events/ingest', (use) => {
  let h: Harness;
  let s: Session & { accountId: number };
  const agents: number[] = [];

  beforeAll(async () => {
    h = use();
    s = await createTenant(h);
    await createGroup(h, s, { groupId: 55 });
    for (let i = 0; i < 3; i++) agents.push((await createAgent(h, s, { group: 55 })).agentId);
    await ingestOk(
      h,
      s.ssid,
      agents.map((agentId) => ev(h, 'agent.login', { agentId, loginType: 'SIP' })),
    );
  });

  it('missed then answered elsewhere, missed by all, retry answered (ghost), hold', async () => {
    const [a1, a2, a3] = agents as [number, number, number];
    const start = nowSec(h);
    // A: a1 misses (10 s), a2 answers after 4 s, 20 s on hold within 60 s.
    await ingestOk(h, s.ssid, [
      ev(h, 'call.queued', { callId: 'A', groupId: 55, did: '9100', campaignId: 'camp', caller: '919800000001' }),
      ev(h, 'call.ringing', { callId: 'A', agentId: a1 }),
    ]);
    advance(h, 10);
    await ingestOk(h, s.ssid, [ev(h, 'call.missed', { callId: 'A', agentId: a1 }), ev(h, 'call.ringing', { callId: 'A', agentId: a2 })]);
    advance(h, 4);
    await ingestOk(h, s.ssid, [ev(h, 'call.answered', { callId: 'A', agentId: a2 })]);
    advance(h, 10);
    await ingestOk(h, s.ssid, [ev(h, 'call.hold', { callId: 'A' })]);
    advance(h, 20);
    await ingestOk(h, s.ssid, [ev(h, 'call.unhold', { callId: 'A' })]);
    advance(h, 30);
    await ingestOk(h, s.ssid, [ev(h, 'call.ended', { callId: 'A', reason: 'completed' })]);
    // B: a1 misses, the caller hangs up.
    await ingestOk(h, s.ssid, [
      ev(h, 'call.queued', { callId: 'B', groupId: 55, did: '9100', caller: '919800000002' }),
      ev(h, 'call.ringing', { callId: 'B', agentId: a1 }),
    ]);
    advance(h, 15);
    await ingestOk(h, s.ssid, [ev(h, 'call.missed', { callId: 'B', agentId: a1 }), ev(h, 'call.ended', { callId: 'B', reason: 'abandoned' })]);
    // C: retry of B, a3 answers, 2 s of talk (a ghost call).
    advance(h, 60);
    await ingestOk(h, s.ssid, [
      ev(h, 'call.queued', { callId: 'C', groupId: 55, did: '9100', caller: '919800000002', retryOf: 'B' }),
      ev(h, 'call.ringing', { callId: 'C', agentId: a3 }),
    ]);
    advance(h, 6);
    await ingestOk(h, s.ssid, [ev(h, 'call.answered', { callId: 'C', agentId: a3 })]);
    advance(h, 2);
    await ingestOk(h, s.ssid, [ev(h, 'call.ended', { callId: 'C', reason: 'completed' })]);

    const fields = 'TC,AC,MC,UC,CA,PM,CM,FR_UC,FR_CA,FR_CAN_FR_PM_N,GH_UC,avgRingTime,avgHoldTime';
    const expected = {
      [a1]: { TC: 2, AC: 0, MC: 2, UC: 2, CA: 0, PM: 1, CM: 1, FR_UC: 0, FR_CA: 0, FR_CAN_FR_PM_N: 1, GH_UC: 0, avgRingTime: 12.5, avgHoldTime: null },
      [a2]: { TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, FR_UC: 0, FR_CA: 0, FR_CAN_FR_PM_N: 0, GH_UC: 0, avgRingTime: 4, avgHoldTime: 20 },
      [a3]: { TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, FR_UC: 1, FR_CA: 1, FR_CAN_FR_PM_N: 0, GH_UC: 1, avgRingTime: 6, avgHoldTime: 0 },
    };
    // Whole history (daily roll-up) and a range of seconds (raw calls) agree.
    const all = await h.post('/api/v2/analysis/hits', { ssid: s.ssid, fields });
    expect(all.body.data).toEqual(expected);
    const range = await h.post('/api/v2/analysis/call', {
      ssid: s.ssid,
      fields,
      filter: [{ key: 'date', condi: 'range', val: `${Math.floor(start)},${Math.ceil(nowSec(h))}` }],
    });
    expect(range.body.data).toEqual(expected);
    const byGroup = await h.post('/api/v2/analysis/hits', { ssid: s.ssid, breakDown: 'groupId', fields: 'UC,CA,CM,FR_CAN_FR_PM_N' });
    expect(byGroup.body.data).toEqual({ '55': { UC: 3, CA: 2, CM: 1, FR_CAN_FR_PM_N: 1 } });
  });
});
