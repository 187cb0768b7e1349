import { expect, it } from 'vitest';
import { tryLock, unlock } from '../../src/db/locks.js';
import { listLockKey } from '../../src/modules/queue/queue.service.js';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { advance, ev, ingestOk } from './events.fixtures.js';

type Row = Record<string, unknown>;
let day = 0;

/**
 * T = noon + 400 s. c0 queued at T-400 and answered by a3 at T-398 (outside the window);
 * c1 queued T (camp1, D1), answered by a1 at T+10; c2 queued T+10 rang a2, missed T+15, abandoned T+20;
 * c3 (outbound, D2) queued T+20, waiting; c4 (D2) queued T+40 ringing a2. Now T+50. a4 idle.
 */
async function scenario(h: Harness) {
  h.clock.set(Date.UTC(2027, 3, 1, 12) + day++ * 3 * 86_400_000);
  const t = await createTenant(h);
  const g = await createGroup(h, t);
  const [a1, a2, a3, a4] = [
    (await createAgent(h, t, { group: g })).agentId,
    (await createAgent(h, t, { group: g })).agentId,
    (await createAgent(h, t, { group: g })).agentId,
    (await createAgent(h, t, { group: g })).agentId,
  ];
  const D1 = '18005550101';
  const D2 = '18005550102';
  let n = 0;
  const send = async (events: Row[]) => {
    n += events.length;
    await ingestOk(h, t.ssid, events);
  };
  await send([a1, a2, a3, a4].map((agentId) => ev(h, 'agent.login', { agentId })));
  await send([ev(h, 'call.queued', { callId: 'c0', groupId: g, did: D1 }), ev(h, 'call.ringing', { callId: 'c0', agentId: a3 })]);
  advance(h, 2);
  await send([ev(h, 'call.answered', { callId: 'c0', agentId: a3 })]);
  advance(h, 398);
  const T = h.clock.now() / 1000;
  await send([ev(h, 'call.queued', { callId: 'c1', groupId: g, did: D1, campaignId: 'camp1' }), ev(h, 'call.ringing', { callId: 'c1', agentId: a1 })]);
  advance(h, 10);
  await send([
    ev(h, 'call.answered', { callId: 'c1', agentId: a1 }),
    ev(h, 'call.queued', { callId: 'c2', groupId: g, did: D1 }),
    ev(h, 'call.ringing', { callId: 'c2', agentId: a2 }),
  ]);
  advance(h, 5);
  await send([ev(h, 'call.missed', { callId: 'c2', agentId: a2 })]);
  advance(h, 5);
  await send([
    ev(h, 'call.ended', { callId: 'c2', reason: 'abandoned' }),
    ev(h, 'call.queued', { callId: 'c3', groupId: g, did: D2, direction: 'outbound', caller: '919811112222' }),
  ]);
  advance(h, 20);
  await send([ev(h, 'call.queued', { callId: 'c4', groupId: g, did: D2 }), ev(h, 'call.ringing', { callId: 'c4', agentId: a2 })]);
  advance(h, 10);
  return { t, g, a1, a2, a3, a4, D1, D2, T, events: n };
}

const c = (add: number, drop: number, con: number, pen: number, process: number, ass: number) => ({ add, drop, con, pen, process, ass });

forEachDatabase('queue/count and queue/list', (use) => {
  it('queue/count: exact figures per dimension after a scripted sequence', async () => {
    const h = use();
    const s = await scenario(h);
    const res = await h.post<{ data: Row; lstSync: string; window: number; chart: Row }>('/api/v2/queue/count', { ssid: s.t.ssid });
    expect(res.body.status).toBe('success');
    expect(res.body.lstSync).toBe(String(s.events));
    expect(res.body.window).toBe(300);
    const d = res.body.data;
    expect({ count: d.count, avC: d.avC, avR: d.avR, stA: d.stA, st1: d.st1 }).toEqual({ count: 4, avC: 10, avR: 7.5, stA: 1, st1: 30 });
    expect((d.calls as Row[]).map((x) => [x.callId, x.state])).toEqual([
      ['c0', 'connected'],
      ['c1', 'connected'],
      ['c3', 'queued'],
      ['c4', 'ringing'],
    ]);
    expect(d.ag).toEqual([
      { key: s.a1, ...c(1, 0, 1, 0, 0, 1) },
      { key: s.a2, ...c(2, 1, 0, 0, 1, 0) },
      { key: s.a3, ...c(0, 0, 0, 0, 0, 1) },
    ]);
    expect(d.grp).toEqual([{ key: s.g, ...c(4, 1, 1, 1, 1, 2) }]);
    expect(d.user).toEqual([{ key: s.t.accountId, ...c(4, 1, 1, 1, 1, 2) }]);
    expect(d.did).toEqual([
      { key: s.D1, ...c(2, 1, 1, 0, 0, 2) },
      { key: s.D2, ...c(2, 0, 0, 1, 1, 0) },
    ]);
    // campId[] counts the dials of campaigns (PRODUCT.md §13; campaign-figures.test.ts): a switch's campaignId on a queued call is no campaign of the account.
    expect(d.campId).toEqual([]);
    expect(d.st).toEqual([
      { key: 'inbound_abandoned', ...c(1, 1, 0, 0, 0, 0) },
      { key: 'inbound_connected', ...c(1, 0, 1, 0, 0, 2) },
      { key: 'inbound_ringing', ...c(1, 0, 0, 0, 1, 0) },
      { key: 'outbound_queued', ...c(1, 0, 0, 1, 0, 0) },
    ]);
    const q = d.qDura as Array<{ time: number; total: number; drop: number; con: number }>;
    const since = s.T + 50 - 300;
    expect(q).toHaveLength(10);
    expect(q[0]!.time).toBe(Math.floor(since));
    expect(q.map((x) => [x.total, x.drop, x.con])).toEqual([...Array(8).fill([0, 0, 0]), [2, 1, 1], [2, 0, 0]]);
    expect((res.body.chart as { total: number[] }).total).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 2, 2]);
    // A wider window takes c0 in.
    const wide = await h.post<{ data: { grp: Row[] } }>('/api/v2/queue/count', { ssid: s.t.ssid, window: 600 });
    expect(wide.body.data.grp).toEqual([{ key: s.g, ...c(5, 1, 2, 1, 1, 2) }]);
    expect((await h.post('/api/v2/queue/count', { ssid: s.t.ssid, window: 5 })).body.code).toBe(1000);
  });

  it('queue/list: filter, pages, Modules, summarytype and their errors', async () => {
    const h = use();
    const s = await scenario(h);
    const list = async (body: Row) => (await h.post<{ data: Row; lstSync: string }>('/api/v2/queue/list', { ssid: s.t.ssid, ...body })).body;
    const ids = async (body: Row) => ((await list(body)).data.calls as Row[]).map((x) => x.callId);
    expect(await ids({ filter: [{ key: 'state', op: 'eq', val: 'queued' }] })).toEqual(['c3']);
    expect(await ids({ filter: [{ key: 'wait', op: 'gte', val: 20 }] })).toEqual(['c3']);
    expect(await ids({ filter: [{ key: 'wait', op: 'lte', val: 10 }] })).toEqual(['c0', 'c1', 'c4']);
    expect(await ids({ filter: [{ key: 'did', op: 'in', val: [s.D2] }] })).toEqual(['c3', 'c4']);
    expect(await ids({ filter: [{ key: 'direction', op: 'ne', val: 'outbound' }] })).toEqual(['c0', 'c1', 'c4']);
    expect(await ids({ filter: [{ key: 'caller', op: 'eq', val: '919811112222' }] })).toEqual(['c3']);
    expect(await ids({ page: 1, size: 2 })).toEqual(['c3', 'c4']);
    expect(await ids({ page: 2, size: 2 })).toEqual([]);
    expect(await ids({ summarytype: 'pending' })).toEqual(['c3']);
    expect(await ids({ summarytype: 'assigned' })).toEqual(['c0', 'c1']);
    const full = await list({});
    expect(Object.keys(full.data).sort()).toEqual(['agent', 'calls', 'onB', 'onC', 'page', 'queueDuration', 'size', 'summary', 'total', 'web'].sort());
    expect(full.data).toMatchObject({ onB: 0, onC: 2, web: 4, total: 4, page: 0, size: 20 });
    expect(full.data.summary).toEqual({ type: 'all', ...c(4, 1, 1, 1, 1, 2), count: 4, avC: 10, avR: 7.5, stA: 1, st1: 30 });
    expect((full.data.agent as Row[]).map((a) => [a.agentId, a.state, a.add, a.con])).toEqual([
      [s.a1, 'oncall', 1, 1],
      [s.a2, 'ringing', 2, 0],
      [s.a3, 'oncall', 0, 0],
      [s.a4, 'available', 0, 0],
    ]);
    const only = await list({ Modules: ['summary'] });
    expect(only.data.calls).toBeUndefined();
    expect(only.data.summary).toBeDefined();
    expect(only.lstSync).toBe(String(s.events));
    for (const bad of [
      { filter: [{ key: 'colour', op: 'eq', val: 1 }] },
      { filter: [{ key: 'wait', op: 'between', val: 1 }] },
      { filter: [{ key: 'wait', op: 'gte', val: 'soon' }] },
      { filter: [{ key: 'did', op: 'in', val: [] }] },
      { filter: [{ key: 'did', op: 'eq', val: { x: 1 } }] },
      { filter: 'state=queued' },
      { summarytype: 'everything' },
    ]) {
      expect((await list(bad)).code, JSON.stringify(bad)).toBe(1502);
    }
    expect((await list({ Modules: ['bogus'] })).code).toBe(1000);
  });

  it('queue/list answers 1501 while an identical request is running for the account', async () => {
    const h = use();
    const s = await scenario(h);
    const body = { Modules: ['calls'], size: 5 };
    const key = listLockKey(s.t.accountId, body);
    const owner = await tryLock(h.db, key, 60_000);
    expect(owner).not.toBeNull();
    expect((await h.post('/api/v2/queue/list', { ssid: s.t.ssid, ...body })).body).toMatchObject({ status: 'error', code: 1501 });
    // A different request is not blocked, and the same one runs once the first is done.
    expect((await h.post('/api/v2/queue/list', { ssid: s.t.ssid, Modules: ['calls'], size: 6 })).body.status).toBe('success');
    await unlock(h.db, key, owner!);
    expect((await h.post('/api/v2/queue/list', { ssid: s.t.ssid, ...body })).body.status).toBe('success');
  });

  it('shows a can_see 0 principal the per-agent rows of its own subtree only', async () => {
    const h = use();
    const s = await scenario(h);
    const role = await createRole(h, s.t, { permissions: ['queue.view'], can_see: 0 });
    const boss = await createAgent(h, s.t, { role });
    const upd = await h.post('/api/v2/Agent/update', { ssid: s.t.ssid, agentId: s.a1, parent: boss.agentId });
    expect(upd.body.status, JSON.stringify(upd.body)).toBe('success');
    const session = await login(h, boss.email, boss.password);
    const count = await h.post<{ data: { ag: Row[]; grp: Row[] } }>('/api/v2/queue/count', { ssid: session.ssid });
    expect(count.body.data.ag.map((r) => r.key)).toEqual([s.a1]);
    expect(count.body.data.grp).toEqual([{ key: s.g, ...c(4, 1, 1, 1, 1, 2) }]);
    const list = await h.post<{ data: { agent: Row[] } }>('/api/v2/queue/list', { ssid: session.ssid, Modules: ['agent'] });
    expect(list.body.data.agent.map((r) => r.agentId)).toEqual([s.a1]);
    // The client still sees every agent's row.
    const all = await h.post<{ data: { ag: Row[] } }>('/api/v2/queue/count', { ssid: s.t.ssid });
    expect(all.body.data.ag).toHaveLength(3);
  });

  it('needs queue.view (1015)', async () => {
    const h = use();
    const t = await createTenant(h);
    const role = await createRole(h, t, { permissions: ['agent.live'] });
    const a = await createAgent(h, t, { role });
    const s = await login(h, a.email, a.password);
    expect((await h.post('/api/v2/queue/count', { ssid: s.ssid })).body.code).toBe(1015);
    expect((await h.post('/api/v2/queue/list', { ssid: s.ssid })).body.code).toBe(1015);
  });
});
