import { afterAll, afterEach, expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, openSse } from '../helpers/sse.js';
import { memberEvent, startSwitch, waitFor as waitAst, type Row } from './asterisk.fixtures.js';
import { agentRow, AGENT_HEADER, scene, status, stopAll, table, waitFor as waitFs } from './connect-freeswitch.fixtures.js';
import { nowSec } from './events.fixtures.js';

/*
 * Agent/setState (PRODUCT.md §15): the service pushes `agent.state` to the
 * switch and changes nothing itself; the agent's state is what the switch
 * then reports. Both connectors' mappings against the scripted switches.
 */

afterAll(closeReaders);
afterEach(stopAll);

interface Desk {
  agentId: number;
  name: string;
  groups: Array<{ groupId: number; name: string }>;
  breakReasons: string[];
  state: null | { state: string; breakReason: string | null; loggedIn: boolean };
}

async function desk(h: Harness, ssid: string): Promise<Desk> {
  const res = await h.post<{ data: Desk }>('/api/v2/Agent/desk', { ssid });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data;
}

forEachDatabase('Agent/setState, Agent/desk, auth/whoami and the connectors’ agent.state', (use) => {
  it('pushes agent.state to switch credentials only; the desk state is unchanged until the switch reports it', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t, { name: 'sales' });
    const role = await createRole(h, t, { permissions: ['agent.live'] });
    const a = await createAgent(h, t, { group: g, role, name: 'Asha' });
    const other = await createAgent(h, t, { role });
    const s = await login(h, a.email, a.password);
    const sw = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    const stream = await openSse(`${await baseUrl(h)}/api/v2/stream?userId=${sw.body.userId}&token=${sw.body.token}`);
    const board = await openSse(`${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`);
    await board.next((m) => m.event === 'ready');
    await stream.next((m) => m.event === 'ready');

    const before = await desk(h, s.ssid);
    expect(before).toMatchObject({
      agentId: a.agentId,
      name: 'Asha',
      groups: [{ groupId: g, name: 'sales' }],
      breakReasons: ['break', 'lunch', 'training', 'meeting'],
    });
    expect(before.state).toBeNull();

    const res = await h.post<{ data: { seq: number } }>('/api/v2/Agent/setState', { ssid: s.ssid, state: 'break', reason: 'lunch' });
    expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    const msg = await stream.next((m) => m.event === 'agent.state');
    expect(msg.data).toEqual({ agentId: a.agentId, state: 'break', reason: 'lunch', groupIds: [g], ts: nowSec(h), seq: res.body.data.seq });
    expect((await desk(h, s.ssid)).state).toBeNull();
    // Without a reason a break takes the account's first one; a client names the agent.
    await h.post('/api/v2/Agent/setState', { ssid: t.ssid, agentId: a.agentId, state: 'break' });
    expect((await stream.next((m) => m.event === 'agent.state' && (m.data as Row).reason === 'break')).data).toMatchObject({ agentId: a.agentId });
    await h.post('/api/v2/Agent/setState', { ssid: s.ssid, state: 'logged_out' });
    expect((await stream.next((m) => m.event === 'agent.state' && (m.data as Row).state === 'logged_out')).data).toMatchObject({ reason: null });
    expect(board.raw()).not.toContain('agent.state');

    // The switch reports the break: now the desk shows it.
    const ts = nowSec(h);
    await h.post('/api/v2/events/ingest', {
      userId: sw.body.userId,
      token: sw.body.token,
      events: [
        { eventId: 'st-1', type: 'agent.login', ts, agentId: a.agentId, loginType: 'SIP' },
        { eventId: 'st-2', type: 'agent.break.start', ts, agentId: a.agentId, reason: 'lunch' },
      ],
    });
    expect((await desk(h, s.ssid)).state).toMatchObject({ state: 'break', breakReason: 'lunch', loggedIn: true });

    // Refusals: another agent's state without agent.manage (1015), a reason not the account's (1000), a reason
    // without a break (1000), a client without agentId (1000), an unknown agent (1509), switch credentials (1015).
    const post = (body: Row) => h.post('/api/v2/Agent/setState', body).then((r) => r.body);
    expect(await post({ ssid: s.ssid, agentId: other.agentId, state: 'ready' })).toMatchObject({ code: 1015 });
    expect(await post({ ssid: s.ssid, state: 'break', reason: 'nap' })).toMatchObject({ code: 1000 });
    expect(await post({ ssid: s.ssid, state: 'ready', reason: 'lunch' })).toMatchObject({ code: 1000 });
    expect(await post({ ssid: t.ssid, state: 'ready' })).toMatchObject({ code: 1000 });
    expect(await post({ ssid: t.ssid, agentId: 999999, state: 'ready' })).toMatchObject({ code: 1509 });
    expect(await post({ userId: sw.body.userId, token: sw.body.token, agentId: a.agentId, state: 'ready' })).toMatchObject({ code: 1015 });
    expect((await h.post('/api/v2/Agent/desk', { ssid: t.ssid })).body.code).toBe(1015);

    // The account's own reasons (account/updateSettings) are what a break may give.
    const set = await h.post('/api/v2/account/updateSettings', { ssid: t.ssid, breakReasons: ['coffee', 'coaching'] });
    expect(set.body.status, JSON.stringify(set.body)).toBe('success');
    expect((await desk(h, s.ssid)).breakReasons).toEqual(['coffee', 'coaching']);
    expect(await post({ ssid: s.ssid, state: 'break', reason: 'lunch' })).toMatchObject({ code: 1000 });
    expect(await post({ ssid: s.ssid, state: 'break', reason: 'coaching' })).toMatchObject({ status: 'success' });
    expect((await h.post('/api/v2/account/updateSettings', { ssid: t.ssid, breakReasons: ['a', 'a'] })).body.code).toBe(1000);
  });

  it('auth/whoami answers the kind, the agent and the permissions held', async () => {
    const h = use();
    const t = await createTenant(h);
    const role = await createRole(h, t, { permissions: ['call.originate', 'agent.live'] });
    const a = await createAgent(h, t, { role });
    const s = await login(h, a.email, a.password);
    expect((await h.post('/api/v2/auth/whoami', { ssid: s.ssid })).body.data).toEqual({
      kind: 'agent',
      userId: `agent-${a.agentId}`,
      agentId: a.agentId,
      permissions: ['agent.live', 'call.originate'],
      canSee: true,
    });
    const c = (await h.post<{ data: { kind: string; agentId: null; permissions: string[] } }>('/api/v2/auth/whoami', { ssid: t.ssid })).body.data;
    expect(c).toMatchObject({ kind: 'client', agentId: null });
    expect(c.permissions).toContain('audit.view');
  });

  it('Asterisk: break → QueuePause with the reason, ready → QueueAdd to its queues, logged_out → QueueRemove; the state follows the events', async () => {
    const h = use();
    const sw = await startSwitch(h, { members: ['5001', '5002'] });
    try {
      const set = (agentId: number, state: string, reason?: string) =>
        h.post('/api/v2/Agent/setState', { ssid: sw.t.ssid, agentId, state, ...(reason ? { reason } : {}) });
      const queueActions = () => sw.fake.actions.filter((a) => String(a.Action).startsWith('Queue') && a.Action !== 'QueueStatus');

      await set(sw.ids.a1, 'break', 'lunch');
      await waitAst(() => queueActions().length >= 1, 'the QueuePause');
      expect(queueActions()).toEqual([{ Action: 'QueuePause', ActionID: expect.any(String), Interface: 'PJSIP/5001', Paused: 'true', Reason: 'lunch' }]);
      // Nothing changes in the service until the switch says so.
      const live = async (agentId: number) => {
        const r = await h.post<{ message: { pr: Array<{ I: string; ex: { state: string }; br: { reason?: string } }> } }>('/api/v2/Agent/live', {
          ssid: sw.t.ssid,
          groupid: sw.g,
          status: 'all',
          A: 1,
        });
        return r.body.message.pr.find((p) => p.I === String(agentId));
      };
      expect((await live(sw.ids.a1))?.ex.state).toBe('available');
      await sw.fake.send(memberEvent('QueueMemberPause', nowSec(h), '5001', true, 'lunch'));
      await sw.sync();
      expect(await live(sw.ids.a1)).toMatchObject({ ex: { state: 'break' }, br: { reason: 'lunch' } });

      // 5003 is in no queue: ready adds it to its group's queue.
      await set(sw.ids.a3, 'ready');
      await waitAst(() => queueActions().length >= 2, 'the QueueAdd');
      expect(queueActions()[1]).toEqual({ Action: 'QueueAdd', ActionID: expect.any(String), Queue: 'sales', Interface: 'PJSIP/5003', Paused: 'false' });

      // Back from the break: unpaused in every queue.
      await set(sw.ids.a1, 'ready');
      await waitAst(() => queueActions().length >= 3, 'the unpause');
      expect(queueActions()[2]).toEqual({ Action: 'QueuePause', ActionID: expect.any(String), Interface: 'PJSIP/5001', Paused: 'false' });

      await set(sw.ids.a2, 'logged_out');
      await waitAst(() => queueActions().length >= 4, 'the QueueRemove');
      expect(queueActions()[3]).toEqual({ Action: 'QueueRemove', ActionID: expect.any(String), Queue: 'sales', Interface: 'PJSIP/5002' });
      await sw.fake.send(memberEvent('QueueMemberRemoved', nowSec(h), '5002', false));
      await sw.sync();
      expect((await live(sw.ids.a2))?.ex.state).toBe('offline');
    } finally {
      await sw.stop();
    }
  });

  it('FreeSWITCH: callcenter_config agent set status, the break reported with the reason asked', async () => {
    const h = use();
    const s = await scene(h);
    s.fake.api.set("callcenter_config agent set status 5001@default 'On Break'", '+OK\n');
    s.fake.api.set("callcenter_config agent set status 5002@default 'Logged Out'", '+OK\n');
    await s.post('/api/v2/Agent/setState', { agentId: s.a1, state: 'break', reason: 'training' });
    await waitFs(() => s.fake.commands.some((c) => c.includes('agent set status 5001@default')), 'the status command');
    expect(s.fake.commands.filter((c) => c.includes('agent set status'))).toEqual(["api callcenter_config agent set status 5001@default 'On Break'"]);
    await s.play(status(s, 1, '5001', 'On Break'));
    const d = await s.post<{ message: { pr: Array<{ I: string; br: { reason?: string } }> } }>('/api/v2/Agent/live', { groupid: s.g, status: 'all' });
    expect(d.message.pr.find((p) => p.I === String(s.a1))?.br.reason).toBe('training');

    await s.post('/api/v2/Agent/setState', { agentId: s.a2, state: 'logged_out' });
    await waitFs(() => s.fake.commands.some((c) => c.includes('agent set status 5002@default')), 'the logout command');
    // An agent mod_callcenter does not list: an error logged, nothing sent.
    s.fake.api.set('callcenter_config agent list', table(AGENT_HEADER, [agentRow('5001', 'On Break', 'Waiting')]));
    await s.post('/api/v2/Agent/setState', { agentId: s.sup, state: 'ready' });
    await waitFs(() => s.lines.some((l) => l.includes(`agent ${s.sup} is no mod_callcenter agent`)), 'the error');
  });
});
