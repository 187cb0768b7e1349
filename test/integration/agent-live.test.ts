import { expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { advance, ev, ingestOk } from './events.fixtures.js';

interface El {
  I: string;
  avT: string[];
  avD: number;
  l: unknown;
  ml: string;
  IsOcc: number;
  mic_perm: number;
  sip_status: string;
  tt: number;
  tC: number;
  ataT: string[];
  br: unknown;
  liC: Record<string, unknown>;
  ex?: Record<string, unknown>;
}
interface Live {
  message: { pr: El[]; oCA: number; oBA: number; lA: number; Dia: number; Ring: number };
}

let day = 0;
/** A fixed noon (UTC) of a fresh day per test, so "today" is deterministic. */
function noon(h: Harness) {
  h.clock.set(Date.UTC(2027, 0, 1, 12) + day++ * 3 * 86_400_000);
}

async function scenario(h: Harness, timezone?: string) {
  noon(h);
  const t = await createTenant(h, timezone ? { timezone } : {});
  const g = await createGroup(h, t);
  const a1 = (await createAgent(h, t, { group: g, name: 'Asha' })).agentId;
  const a2 = (await createAgent(h, t, { group: g, name: 'Bilal' })).agentId;
  const a3 = (await createAgent(h, t, { group: g, name: 'Chen' })).agentId;
  const a4 = (await createAgent(h, t, { name: 'Dora' })).agentId;
  await ingestOk(h, t.ssid, [
    ev(h, 'agent.login', { agentId: a1 }),
    ev(h, 'agent.login', { agentId: a2, loginType: 'Mobile' }),
    ev(h, 'agent.login', { agentId: a3, loginType: 'SIP' }),
    ev(h, 'agent.sip', { agentId: a3, sipStatus: 'online' }),
  ]);
  advance(h, 60);
  await ingestOk(h, t.ssid, [ev(h, 'agent.break.start', { agentId: a2, reason: 'Lunch' })]);
  advance(h, 30);
  await ingestOk(h, t.ssid, [ev(h, 'call.queued', { callId: 'c1', groupId: g, caller: '919800000001' }), ev(h, 'call.ringing', { callId: 'c1', agentId: a1 })]);
  advance(h, 5);
  await ingestOk(h, t.ssid, [ev(h, 'call.answered', { callId: 'c1', agentId: a1 })]);
  advance(h, 100);
  await ingestOk(h, t.ssid, [ev(h, 'call.ended', { callId: 'c1' }), ev(h, 'agent.wrapup.start', { agentId: a1 })]);
  advance(h, 20);
  await ingestOk(h, t.ssid, [
    ev(h, 'call.queued', { callId: 'c2', groupId: g, did: '18005550100', caller: '919800000002' }),
    ev(h, 'call.ringing', { callId: 'c2', agentId: a3 }),
  ]);
  advance(h, 3);
  return { t, g, a1, a2, a3, a4 };
}

forEachDatabase('Agent/live', (use) => {
  it('shows exact figures after a scripted sequence', async () => {
    const h = use();
    const { t, a1, a2, a3, a4 } = await scenario(h);
    const res = await h.post<Live>('/api/v2/Agent/live', { ssid: t.ssid });
    expect(res.body.status).toBe('success');
    const m = res.body.message;
    expect({ oCA: m.oCA, oBA: m.oBA, lA: m.lA, Dia: m.Dia, Ring: m.Ring }).toEqual({ oCA: 0, oBA: 1, lA: 3, Dia: 1, Ring: 1 });
    const by = new Map(m.pr.map((e) => [Number(e.I), e]));
    expect([...by.keys()]).toEqual([a1, a2, a3, a4]);
    const e1 = by.get(a1)!;
    expect(e1).toMatchObject({ avT: ['00', '01', '35'], avD: 0, tt: 100, tC: 1, ataT: ['00', '01', '40'], IsOcc: 0, ml: 'No', mic_perm: 1, br: {}, liC: {} });
    expect(e1.l).toEqual({ type: 'Web', duration: ['00', '03', '38'] });
    const e2 = by.get(a2)!;
    expect(e2).toMatchObject({ avT: ['00', '01', '00'], ml: 'Yes', mic_perm: 0, tt: 0, tC: 0, ataT: ['00', '00', '00'] });
    expect(e2.br).toEqual({ reason: 'Lunch', duration: ['00', '02', '38'] });
    const e3 = by.get(a3)!;
    const start = h.clock.now() / 1000 - 218;
    expect(e3).toMatchObject({ avT: ['00', '03', '38'], avD: Math.floor(start), IsOcc: 1, sip_status: 'online' });
    expect(e3.l).toEqual({ type: 'SIP', duration: ['00', '03', '38'] });
    expect(e3.liC).toMatchObject({ callId: 'c2', state: 'ringing', caller: '919800000002', did: '18005550100', duration: ['00', '00', '03'] });
    expect(by.get(a4)).toMatchObject({ l: 'No', avT: ['00', '00', '00'], sip_status: 'offline', tt: 0, tC: 0, IsOcc: 0, br: {}, liC: {} });
  });

  it('applies groupid (explicit, default setting, unknown 1006), status, A and filter (1502)', async () => {
    const h = use();
    const { t, g, a1, a2, a3, a4 } = await scenario(h);
    const ids = async (body: Record<string, unknown>) =>
      ((await h.post<Live>('/api/v2/Agent/live', { ssid: t.ssid, ...body })).body.message.pr ?? []).map((e) => Number(e.I));
    expect(await ids({ groupid: String(g) })).toEqual([a1, a2, a3]);
    expect(await ids({ status: 'login' })).toEqual([a1, a2, a3]);
    expect(await ids({ filter: [{ key: 'state', val: 'break' }] })).toEqual([a2]);
    expect(await ids({ filter: [{ key: 'state', op: 'in', val: ['ringing', 'wrapup'] }] })).toEqual([a1, a3]);
    expect(
      await ids({
        filter: [
          { key: 'state', op: 'ne', val: 'offline' },
          { key: 'loginType', val: 'SIP' },
        ],
      }),
    ).toEqual([a3]);
    expect((await h.post('/api/v2/Agent/live', { ssid: t.ssid, groupid: 987654 })).body.code).toBe(1006);
    // No group can have an id past the safe integers (a PostgreSQL bigint once answered 500 here) or one that is not digits.
    for (const groupid of [1e308, Number.MAX_SAFE_INTEGER + 2, 'abc', -1]) {
      expect((await h.post('/api/v2/Agent/live', { ssid: t.ssid, groupid })).body.code).toBe(1006);
    }
    expect((await h.post('/api/v2/Agent/live', { ssid: t.ssid, filter: [{ key: 'colour', val: 'red' }] })).body.code).toBe(1502);
    expect((await h.post('/api/v2/Agent/live', { ssid: t.ssid, filter: [{ key: 'state', val: 'sleeping' }] })).body.code).toBe(1502);
    expect((await h.post('/api/v2/Agent/live', { ssid: t.ssid, filter: 'state' })).body.code).toBe(1502);
    expect((await h.post('/api/v2/Agent/live', { ssid: t.ssid, status: 'busy' })).body.code).toBe(1000);
    // The account default (55 for a new account) does not exist here: all agents. Set it to g: only g's agents.
    await h.post('/api/v2/account/updateSettings', { ssid: t.ssid, defaultGroupId: g });
    expect(await ids({})).toEqual([a1, a2, a3]);
    await h.post('/api/v2/account/updateSettings', { ssid: t.ssid, defaultGroupId: null });
    expect(await ids({})).toEqual([a1, a2, a3, a4]);
    const extra = await h.post<Live>('/api/v2/Agent/live', { ssid: t.ssid, A: 1, filter: [{ key: 'agentId', val: a3 }] });
    expect(extra.body.message.pr[0]!.ex).toMatchObject({ state: 'ringing', ringingCallId: 'c2', availableSecs: 218 });
    const plain = await h.post<Live>('/api/v2/Agent/live', { ssid: t.ssid });
    expect(plain.body.message.pr[0]!.ex).toBeUndefined();
  });

  it('uses group 55 by default when it exists', async () => {
    const h = use();
    noon(h);
    const t = await createTenant(h);
    await createGroup(h, t, { groupId: 55 });
    const in55 = (await createAgent(h, t, { group: 55 })).agentId;
    const other = (await createAgent(h, t)).agentId;
    const res = await h.post<Live>('/api/v2/Agent/live', { ssid: t.ssid });
    expect(res.body.message.pr.map((e) => Number(e.I))).toEqual([in55]);
    // An empty groupid asks for every agent (not the default group), even right after the default view.
    const all = await h.post<Live>('/api/v2/Agent/live', { ssid: t.ssid, groupid: '' });
    expect(all.body.message.pr.map((e) => Number(e.I))).toEqual([in55, other]);
    // A new agent shows on the next request (the cached view is invalidated by the agent count).
    const late = (await createAgent(h, t, { group: 55 })).agentId;
    const again = await h.post<Live>('/api/v2/Agent/live', { ssid: t.ssid });
    expect(again.body.message.pr.map((e) => Number(e.I))).toEqual([in55, late]);
  });

  it('starts a new day at local midnight of the account time zone', async () => {
    const h = use();
    const { t, a1, a3 } = await scenario(h, 'Asia/Kolkata');
    // 12:03:38 UTC is 17:33:38 in Kolkata (+05:30); 6.5 h later it is 00:03:38 there.
    advance(h, 6.5 * 3600);
    const m = (await h.post<Live>('/api/v2/Agent/live', { ssid: t.ssid })).body.message;
    const e1 = m.pr.find((e) => Number(e.I) === a1)!;
    expect(e1).toMatchObject({ tt: 0, tC: 0, avT: ['00', '00', '00'] });
    // a3 has been available (ringing) the whole time: today counts from midnight.
    expect(m.pr.find((e) => Number(e.I) === a3)!.avT).toEqual(['00', '03', '38']);
  });

  it('respects visibility (can_see 0: own subtree) and the agent.live permission (1015)', async () => {
    const h = use();
    noon(h);
    const t = await createTenant(h);
    const seeOwn = await createRole(h, t, { permissions: ['agent.live'], can_see: 0 });
    const boss = await createAgent(h, t, { role: seeOwn });
    const report = (await createAgent(h, t, { parent: boss.agentId })).agentId;
    const elsewhere = (await createAgent(h, t)).agentId;
    const s = await login(h, boss.email, boss.password);
    const res = await h.post<Live>('/api/v2/Agent/live', { ssid: s.ssid, groupid: '' });
    expect(res.body.message.pr.map((e) => Number(e.I)).sort()).toEqual([boss.agentId, report].sort());
    // Moved out of the subtree: gone from the very next answer (same clock second, no event since).
    const moved = await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: report, parent: elsewhere });
    expect(moved.body).toMatchObject({ status: 'success' });
    const after = await h.post<Live>('/api/v2/Agent/live', { ssid: s.ssid, groupid: '' });
    expect(after.body.message.pr.map((e) => Number(e.I))).toEqual([boss.agentId]);
    const noLive = await createRole(h, t, { permissions: ['agent.view'] });
    const other = await createAgent(h, t, { role: noLive });
    const s2 = await login(h, other.email, other.password);
    const denied = await h.post('/api/v2/Agent/live', { ssid: s2.ssid });
    expect(denied.body).toMatchObject({ status: 'error', code: 1015 });
  });
});
