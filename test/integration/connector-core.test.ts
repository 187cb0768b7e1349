import { afterAll, expect, it } from 'vitest';
import { ConnectorRuntime, switchEventId, type OriginateCommand, type SwitchEvent, type TakeoverCommand } from '../../src/connectors/core/index.js';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { createTenant, unique } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders } from '../helpers/sse.js';
import { nowSec } from './events.fixtures.js';

afterAll(closeReaders);

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function switchToken(h: Harness, ssid: string): Promise<{ userId: string; token: string }> {
  const res = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid, kind: 'switch' });
  expect(res.body.status).toBe('success');
  return { userId: res.body.userId, token: res.body.token };
}

async function tenantWithSwitch(h: Harness) {
  const t = await createTenant(h);
  const queue = unique('sales-');
  const g = await createGroup(h, t, { name: queue });
  const a = await createAgent(h, t, { group: g, dest_type: 'SIP', dest_value: 'sip:5001@pbx.example.com', name: 'Asha' });
  const did = await createDid(h, t);
  const sw = await switchToken(h, t.ssid);
  return { t, g, a, did, sw, queue };
}

forEachDatabase('connector core: switch/config, switch/state, the runtime', (use) => {
  it('switch/config answers groups, agents with their destinations and DIDs to a switch token; agents may not call it (1015)', async () => {
    const h = use();
    const { t, g, a, did, sw, queue } = await tenantWithSwitch(h);
    const res = await h.post<{ data: Record<string, unknown> }>('/api/v2/switch/config', sw);
    expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    const data = res.body.data as { groups: unknown[]; agents: Array<Record<string, unknown>>; dids: string[] };
    expect(data.groups).toEqual([{ groupId: g, name: queue }]);
    expect(data.agents).toHaveLength(1);
    expect(data.agents[0]).toMatchObject({ agentId: a.agentId, name: 'Asha', dest_type: 'SIP', dest_value: 'sip:5001@pbx.example.com' });
    expect(data.dids).toEqual([did]);
    const s = await h.post('/api/v2/auth/login', { username: a.email, password: a.password });
    const denied = await h.post('/api/v2/switch/config', { ssid: s.body.ssid });
    expect(denied.body.code).toBe(1015);
    expect((await h.post('/api/v2/switch/state', { ssid: t.ssid })).body.data).toEqual({ lstSync: 0, calls: [], agents: [] });
  });

  it('forwards mapped events in batches, a replay is counted as duplicates, takeover commands arrive from the stream', async () => {
    const h = use();
    const { t, g, a, did, sw, queue } = await tenantWithSwitch(h);
    const api = await baseUrl(h);
    const takeovers: TakeoverCommand[] = [];
    const originates: OriginateCommand[] = [];
    const lines: string[] = [];
    const rt = new ConnectorRuntime({
      conn: { api, ...sw },
      queueMap: new Map(),
      agentMap: new Map(),
      statusPort: null,
      switchName: 'test',
      log: (l) => lines.push(l),
      batchDelayMs: 5,
      now: () => h.clock.now(),
    });
    await rt.start({ takeover: async (c) => void takeovers.push(c), originate: async (c) => void originates.push(c), agentState: async () => {} });
    await rt.stream!.connected;
    expect(await rt.group(queue)).toBe(g);
    expect(await rt.agent('PJSIP/5001-00000001')).toBe(a.agentId);
    expect(await rt.group('nosuch')).toBeUndefined();
    expect(await rt.agent('PJSIP/7777')).toBeUndefined();
    expect(await rt.agent('SIP/7777')).toBeUndefined();
    expect(lines.filter((l) => l.startsWith('unknown'))).toHaveLength(2);
    const ts = nowSec(h);
    const events: SwitchEvent[] = [
      { eventId: switchEventId('t', 'm1', 'add', ts), type: 'agent.login', ts, agentId: a.agentId, loginType: 'SIP' },
      { eventId: switchEventId('t', 'c1', 'join', ts), type: 'call.queued', ts, callId: 'c1', groupId: g, did, caller: '919800000001' },
      { eventId: switchEventId('t', 'c1', 'called', ts + 1), type: 'call.ringing', ts: ts + 1, callId: 'c1', agentId: a.agentId },
      { eventId: switchEventId('t', 'c1', 'connect', ts + 3), type: 'call.answered', ts: ts + 3, callId: 'c1', agentId: a.agentId },
    ];
    rt.forward(...events);
    await rt.batcher.flush();
    expect(rt.health.eventsForwarded).toBe(4);
    rt.forward(...events);
    await rt.batcher.flush();
    expect({ forwarded: rt.health.eventsForwarded, duplicates: rt.health.duplicates }).toEqual({ forwarded: 4, duplicates: 4 });
    const state = await rt.serviceState();
    expect(state.calls).toEqual([{ callId: 'c1', state: 'connected', groupId: g, agentId: a.agentId, ringingAgentId: null }]);
    expect(state.agents).toEqual([{ agentId: a.agentId, loggedIn: true, breakReason: null }]);

    const sup = await createAgent(h, t, { group: g });
    rt.forward({ eventId: switchEventId('t', 'm2', 'add', ts), type: 'agent.login', ts, agentId: sup.agentId, loginType: 'SIP' });
    await rt.batcher.flush();
    const taken = await h.post('/api/v2/queue/callTakeover', { ssid: t.ssid, callId: 'c1', agentid: sup.agentId });
    expect(taken.body.status, JSON.stringify(taken.body)).toBe('success');
    await waitFor(() => takeovers.length > 0);
    expect(takeovers[0]).toMatchObject({ callId: 'c1', from: a.agentId, to: sup.agentId, caller: '919800000001' });
    expect(rt.health.commandsExecuted).toBe(1);
    expect(rt.health.report()).toMatchObject({ switch: 'test', streamState: 'connected', eventsForwarded: 5, duplicates: 4, skipped: 3 });
    expect(rt.health.line()).toMatch(/^status test=connecting service-stream=connected forwarded=5 duplicates=4 /);
    await rt.stop();
    expect(originates).toEqual([]);
  });
});
