import http from 'node:http';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { startAgi } from '../../src/connectors/agi/agi-command.js';
import { createAgent, createDid, createGroup, uniquePhone } from '../helpers/admin.js';
import { agiRequest } from '../helpers/fastagi.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl } from '../helpers/sse.js';

const servers: net.Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

const port = (s: net.Server | http.Server) => (s.address() as AddressInfo).port;

async function agi(options: Record<string, string>, log: string[] = []): Promise<number> {
  const s = await startAgi({ listen: '127.0.0.1:0', ...options }, (l) => log.push(l), {});
  servers.push(s);
  return port(s);
}

const ORDER = ['CC_BLOCKED', 'CC_BLOCK_REASON', 'CC_DNC', 'CC_STICKY_AGENT', 'CC_STICKY_EXTEN', 'CC_ERROR'];
const FAIL_OPEN = { CC_BLOCKED: '0', CC_BLOCK_REASON: '', CC_DNC: '0', CC_STICKY_AGENT: '', CC_STICKY_EXTEN: '', CC_ERROR: '1' };

forEachDatabase('callcenter agi: FastAGI routing through route/decide', (use) => {
  async function ok(h: Harness, path: string, body: Record<string, unknown>) {
    const res = await h.post(path, body);
    expect(res.body.status, `${path} ${JSON.stringify(res.body)}`).toBe('success');
    return res.body;
  }

  async function setup(h: Harness) {
    const t = await createTenant(h);
    const groupId = await createGroup(h, t, { groupId: 55 });
    const did = await createDid(h, t);
    const sip = await createAgent(h, t, { group: groupId, dest_type: 'SIP', dest_value: 'sip:5001@pbx.example.com' });
    const mobile = await createAgent(h, t, { group: groupId });
    const mobilePhone = (await h.db.get<{ phone: string }>('SELECT phone FROM agents WHERE account_id = $1 AND id = $2', [t.accountId, mobile.agentId]))!.phone;
    await ok(h, '/api/v2/events/ingest', {
      ssid: t.ssid,
      events: [sip, mobile].map((a, i) => ({ eventId: `agi-login-${i}`, type: 'agent.login', agentId: a.agentId, ts: h.clock.now() / 1000 })),
    });
    const sw = (await ok(h, '/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' })) as unknown as { userId: string; token: string };
    const p = await agi({ api: await baseUrl(h), 'user-id': sw.userId, token: sw.token });
    return { t, groupId, did, sip: sip.agentId, mobile: mobile.agentId, mobilePhone, port: p };
  }

  it('an unknown caller: not blocked, every variable set in order, each after 200 result=1, the environment split across reads', async () => {
    const h = use();
    const { did, port: p } = await setup(h);
    const out = await agiRequest(p, { callerid: uniquePhone(), dnid: did, chunk: 7 });
    expect(out.commands.map((c) => c.split(' ')[2])).toEqual(ORDER);
    expect(out.variables).toEqual({ CC_BLOCKED: '0', CC_BLOCK_REASON: '', CC_DNC: '0', CC_STICKY_AGENT: '', CC_STICKY_EXTEN: '', CC_ERROR: '0' });
  });

  it('blocked for the DID (dnid unknown: the extension is the DID), DNC, and sticky agents by SIP extension and by phone', async () => {
    const h = use();
    const { t, groupId, did, sip, mobile, mobilePhone, port: p } = await setup(h);
    const blocked = uniquePhone();
    await ok(h, '/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: blocked, DID: [did] });
    expect((await agiRequest(p, { callerid: blocked, dnid: 'unknown', extension: did })).variables).toMatchObject({
      CC_BLOCKED: '1',
      CC_BLOCK_REASON: 'did',
      CC_STICKY_AGENT: '',
      CC_ERROR: '0',
    });
    const dnc = uniquePhone();
    await ok(h, '/api/v2/Directory/setDnc', { ssid: t.ssid, contact: dnc, dnc: -1 });
    expect((await agiRequest(p, { callerid: dnc, dnid: did })).variables).toMatchObject({ CC_BLOCKED: '0', CC_DNC: '-1' });
    const loyal = uniquePhone();
    // cli_group: found only when the AGI argument passes the group on.
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: loyal, agentId: sip, type: 'cli_group', cli: did, groupid: groupId, expiry: -1 });
    expect((await agiRequest(p, { callerid: loyal, dnid: did })).variables).toMatchObject({ CC_STICKY_AGENT: '' });
    expect((await agiRequest(p, { callerid: loyal, dnid: did, arg1: String(groupId) })).variables).toMatchObject({
      CC_BLOCKED: '0',
      CC_STICKY_AGENT: String(sip),
      CC_STICKY_EXTEN: '5001',
    });
    const mobileFan = uniquePhone();
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: mobileFan, agentId: mobile, type: 'all', expiry: -1 });
    expect((await agiRequest(p, { callerid: mobileFan, dnid: did })).variables).toMatchObject({
      CC_STICKY_AGENT: String(mobile),
      CC_STICKY_EXTEN: mobilePhone,
    });
  });

  it('fails open (CC_BLOCKED=0, CC_ERROR=1): service unreachable, too slow, a refused request, an unknown script', async () => {
    const h = use();
    const { did, port: p } = await setup(h);
    // A port nothing listens on.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadPort = port(closed);
    await new Promise<void>((r) => closed.close(() => r()));
    const log: string[] = [];
    const unreachable = await agi({ api: `http://127.0.0.1:${deadPort}`, 'user-id': 'switch-1', token: 'x' }, log);
    expect((await agiRequest(unreachable, { callerid: uniquePhone(), dnid: did })).variables).toEqual(FAIL_OPEN);
    expect(log.some((l) => l.includes('failing open'))).toBe(true);
    // A service that accepts the request and never answers: the answer comes after --timeout-ms.
    const hung = http.createServer(() => undefined);
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', () => r()));
    servers.push(hung as unknown as net.Server);
    const slow = await agi({ api: `http://127.0.0.1:${port(hung)}`, 'user-id': 'switch-1', token: 'x', 'timeout-ms': '150' });
    const started = Date.now();
    expect((await agiRequest(slow, { callerid: uniquePhone(), dnid: did })).variables).toEqual(FAIL_OPEN);
    expect(Date.now() - started).toBeLessThan(2000);
    hung.closeAllConnections();
    // route/decide refuses a DID the account does not have (1516), and a request without a caller id.
    expect((await agiRequest(p, { callerid: uniquePhone(), dnid: '5550000' })).variables).toEqual(FAIL_OPEN);
    expect((await agiRequest(p, { dnid: did })).variables).toEqual(FAIL_OPEN);
    expect((await agiRequest(p, { script: 'nosuch', callerid: uniquePhone(), dnid: did })).variables).toEqual(FAIL_OPEN);
  });
});
