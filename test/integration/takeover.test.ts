import { expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { advance, ev, ingestOk } from './events.fixtures.js';

type Row = Record<string, unknown>;

async function scenario(h: Harness) {
  const t = await createTenant(h);
  const g = await createGroup(h, t);
  const a1 = await createAgent(h, t, { group: g });
  const sup = await createAgent(h, t, { group: g });
  const idle = await createAgent(h, t, { group: g });
  await ingestOk(h, t.ssid, [
    ev(h, 'agent.login', { agentId: a1.agentId }),
    ev(h, 'agent.login', { agentId: sup.agentId }),
    ev(h, 'call.queued', { callId: 'k1', groupId: g, caller: '919800000003' }),
    ev(h, 'call.ringing', { callId: 'k1', agentId: a1.agentId }),
  ]);
  advance(h, 2);
  await ingestOk(h, t.ssid, [
    ev(h, 'call.answered', { callId: 'k1', agentId: a1.agentId }),
    ev(h, 'call.queued', { callId: 'k2', groupId: g, caller: '919800000004' }),
  ]);
  advance(h, 30);
  return { t, g, a1, sup, idle };
}

forEachDatabase('queue/callTakeover', (use) => {
  it('callId + agentid: moves the call at once, the previous agent goes to wrap-up', async () => {
    const h = use();
    const { t, a1, sup } = await scenario(h);
    const res = await h.post('/api/v2/queue/callTakeover', { ssid: t.ssid, callId: 'k1', agentid: String(sup.agentId) });
    expect(res.body).toEqual({ status: 'success', code: 200, message: 'call taken over', data: { callId: 'k1', from: a1.agentId, to: sup.agentId } });
    const live = (await h.post<{ message: { pr: Row[]; Dia: number; oCA: number } }>('/api/v2/Agent/live', { ssid: t.ssid, A: 1 })).body.message;
    expect({ Dia: live.Dia, oCA: live.oCA }).toEqual({ Dia: 1, oCA: 1 });
    const byId = new Map(live.pr.map((e) => [Number(e.I), e]));
    expect((byId.get(a1.agentId)!.ex as Row).state).toBe('wrapup');
    expect(byId.get(a1.agentId)!.tt).toBe(30);
    expect(byId.get(sup.agentId)!.liC).toMatchObject({ callId: 'k1', state: 'connected' });
    const q = (await h.post<{ data: { calls: Row[] } }>('/api/v2/queue/count', { ssid: t.ssid })).body.data.calls;
    expect(q.find((c) => c.callId === 'k1')).toMatchObject({ agentId: sup.agentId, state: 'connected' });
    // The call history names the taking-over agent; talk runs from the first answer.
    advance(h, 10);
    await ingestOk(h, t.ssid, [ev(h, 'call.ended', { callId: 'k1' })]);
    const row = await h.db.get<Row>('SELECT answered_by, talk_secs FROM calls WHERE account_id = $1 AND call_id = $2', [t.accountId, 'k1']);
    expect(Number(row!.answered_by)).toBe(sup.agentId);
    expect(Math.round(Number(row!.talk_secs))).toBe(40);
  });

  it('callernumber + agentid, and callernumber + callId by an agent principal (the caller takes over)', async () => {
    const h = use();
    const { t, sup } = await scenario(h);
    const res = await h.post('/api/v2/queue/callTakeover', { ssid: t.ssid, callernumber: '+91 98000-00004', agentid: sup.agentId });
    expect(res.body.data).toEqual({ callId: 'k2', from: null, to: sup.agentId });
    const { t: t2, sup: sup2 } = await scenario(h);
    const s = await login(h, sup2.email, sup2.password);
    const res2 = await h.post('/api/v2/queue/callTakeover', { ssid: s.ssid, callernumber: '919800000003', callId: 'k1' });
    expect(res2.body.status, JSON.stringify(res2.body)).toBe('success');
    expect((res2.body.data as Row).to).toBe(sup2.agentId);
    expect(t2.accountId).not.toBe(t.accountId);
  });

  it('a ringing call: the agent it rang is freed (not in wrap-up) and the taker is connected', async () => {
    const h = use();
    const { t, g, sup, idle } = await scenario(h);
    await ingestOk(h, t.ssid, [
      ev(h, 'agent.login', { agentId: idle.agentId }),
      ev(h, 'call.queued', { callId: 'k3', groupId: g }),
      ev(h, 'call.ringing', { callId: 'k3', agentId: idle.agentId }),
    ]);
    const res = await h.post('/api/v2/queue/callTakeover', { ssid: t.ssid, callId: 'k3', agentid: sup.agentId });
    expect(res.body.data).toEqual({ callId: 'k3', from: idle.agentId, to: sup.agentId });
    const pr = (await h.post<{ message: { pr: Row[] } }>('/api/v2/Agent/live', { ssid: t.ssid, A: 1 })).body.message.pr;
    const byId = new Map(pr.map((e) => [Number(e.I), e]));
    expect(byId.get(idle.agentId)!).toMatchObject({ IsOcc: 0, liC: {}, ex: { state: 'available', ringingCallId: '' } });
    expect(byId.get(sup.agentId)!.liC).toMatchObject({ callId: 'k3', state: 'connected' });
    // The offer to the freed agent is a hit that was not answered.
    await ingestOk(h, t.ssid, [ev(h, 'call.ended', { callId: 'k3' })]);
    const hits = await h.db.all<Row>('SELECT agent_id, answered FROM call_hits WHERE account_id = $1 AND call_id = $2', [t.accountId, 'k3']);
    expect(hits.map((x) => [Number(x.agent_id), Number(x.answered)])).toEqual([[idle.agentId, 0]]);
  });

  it('answers 1000 for no live call, a mismatch, a client without agentid; 1043 for a taker not logged in; 1015 without queue.takeover', async () => {
    const h = use();
    const { t, sup, idle } = await scenario(h);
    const post = (body: Row) => h.post('/api/v2/queue/callTakeover', { ssid: t.ssid, ...body });
    const none = await post({ callId: 'nope', agentid: sup.agentId });
    expect(none.http).toBe(200);
    expect(none.body).toEqual({ status: 'error', code: 1000, message: 'Invalid parameter: live call not found or invalid' });
    expect((await post({ callernumber: '919800009999', agentid: sup.agentId })).body.code).toBe(1000);
    expect((await post({ callId: 'k1', callernumber: '919800000004' })).body.code).toBe(1000);
    expect((await post({ callId: 'k1' })).body.code).toBe(1000);
    expect((await post({ agentid: sup.agentId })).body.code).toBe(1000);
    expect((await post({ callId: 'k1', agentid: 999999 })).body.code).toBe(1000);
    expect((await post({ callId: 'k1', agentid: idle.agentId })).body.code).toBe(1043);
    // Another tenant's call is not found.
    const other = await createTenant(h);
    const otherAgent = await createAgent(h, other);
    await ingestOk(h, other.ssid, [ev(h, 'agent.login', { agentId: otherAgent.agentId })]);
    expect((await h.post('/api/v2/queue/callTakeover', { ssid: other.ssid, callId: 'k1', agentid: otherAgent.agentId })).body.code).toBe(1000);
    const role = await createRole(h, t, { permissions: ['queue.view'] });
    const viewer = await createAgent(h, t, { role });
    const s = await login(h, viewer.email, viewer.password);
    expect((await h.post('/api/v2/queue/callTakeover', { ssid: s.ssid, callId: 'k1', agentid: sup.agentId })).body.code).toBe(1015);
  });
});
