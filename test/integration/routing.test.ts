import { expect, it } from 'vitest';
import { createAgent, createDid, createGroup, uniquePhone } from '../helpers/admin.js';
import { createTenant, login, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';

type Decision = { blocked: boolean; reason?: string; dnc: number; stickyAgentId?: number; contact?: string };

forEachDatabase('route/decide', (use) => {
  async function ok(h: Harness, path: string, body: Record<string, unknown>) {
    const res = await h.post(path, body);
    expect(res.body.status, `${path} ${JSON.stringify(res.body)}`).toBe('success');
    return res.body;
  }

  async function decide(h: Harness, auth: Record<string, unknown>, body: Record<string, unknown>): Promise<Decision> {
    const res = await h.post('/api/v2/route/decide', { ...auth, ...body });
    expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    return res.body.data as Decision;
  }

  let n = 0;
  async function events(h: Harness, t: Session, list: Record<string, unknown>[]) {
    const ts = h.clock.now() / 1000;
    const body = await ok(h, '/api/v2/events/ingest', { ssid: t.ssid, events: list.map((e) => ({ eventId: `rt-${++n}`, ts, ...e })) });
    expect((body.data as { errors: unknown[] }).errors).toEqual([]);
  }

  /** A tenant with one group, two DIDs and agents in the group. */
  async function setup(h: Harness, agents = 3) {
    const t = await createTenant(h);
    const groupId = await createGroup(h, t, { groupId: 55 });
    const did = await createDid(h, t);
    const otherDid = await createDid(h, t);
    const ids: number[] = [];
    for (let i = 0; i < agents; i++) ids.push((await createAgent(h, t, { group: groupId })).agentId);
    return { t, groupId, did, otherDid, agents: ids };
  }

  it('answers not blocked, dnc 0 and nothing else for an unknown caller (number normalised)', async () => {
    const h = use();
    const { t, did } = await setup(h, 0);
    const d = await decide(h, { ssid: t.ssid }, { caller: '+91 98765-43210', did });
    expect(d).toEqual({ blocked: false, dnc: 0 });
    const asNumber = await decide(h, { ssid: t.ssid }, { caller: 919876543210, did: Number(did) });
    expect(asNumber).toEqual({ blocked: false, dnc: 0 });
  });

  it('blocks a caller blacklisted for that DID (reason did) and only on that DID', async () => {
    const h = use();
    const { t, did, otherDid } = await setup(h, 0);
    const caller = uniquePhone();
    await ok(h, '/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: caller, DID: [did] });
    expect(await decide(h, { ssid: t.ssid }, { caller, did })).toEqual({ blocked: true, reason: 'did', dnc: 0 });
    expect(await decide(h, { ssid: t.ssid }, { caller, did: otherDid })).toEqual({ blocked: false, dnc: 0 });
    // Removing the entry unblocks at once.
    await ok(h, '/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: caller, DID: [] });
    expect((await decide(h, { ssid: t.ssid }, { caller, did })).blocked).toBe(false);
  });

  it('blocks a contact whose record is blacklisted on every DID (reason contact), and contact wins over did', async () => {
    const h = use();
    const { t, did, otherDid } = await setup(h, 0);
    const caller = uniquePhone();
    await ok(h, '/api/v2/Directory/create', { ssid: t.ssid, contact: caller, contactinfo: { name: 'Blocked Person' }, other: { blacklist: true } });
    for (const d of [did, otherDid])
      expect(await decide(h, { ssid: t.ssid }, { caller, did: d })).toEqual({ blocked: true, reason: 'contact', dnc: 0, contact: caller });
    await ok(h, '/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: caller, DID: [did] });
    expect((await decide(h, { ssid: t.ssid }, { caller, did })).reason).toBe('contact');
    await ok(h, '/api/v2/Directory/update', { ssid: t.ssid, contact: caller, other: { blacklist: false } });
    expect(await decide(h, { ssid: t.ssid }, { caller, did })).toEqual({ blocked: true, reason: 'did', dnc: 0, contact: caller });
    expect(await decide(h, { ssid: t.ssid }, { caller, did: otherDid })).toEqual({ blocked: false, dnc: 0, contact: caller });
  });

  it('reports the current DNC status: permanent, until a time, expired', async () => {
    const h = use();
    const { t, did } = await setup(h, 0);
    const permanent = uniquePhone();
    const until = uniquePhone();
    await ok(h, '/api/v2/Directory/setDnc', { ssid: t.ssid, contact: permanent, dnc: -1 });
    const end = Math.floor(h.clock.now() / 1000) + 3600;
    await ok(h, '/api/v2/Directory/setDnc', { ssid: t.ssid, contact: until, dnc: end });
    expect(await decide(h, { ssid: t.ssid }, { caller: permanent, did })).toEqual({ blocked: false, dnc: -1 });
    expect(await decide(h, { ssid: t.ssid }, { caller: until, did })).toEqual({ blocked: false, dnc: end });
    h.clock.advance(3601_000);
    expect(await decide(h, { ssid: t.ssid }, { caller: until, did })).toEqual({ blocked: false, dnc: 0 });
    expect((await decide(h, { ssid: t.ssid }, { caller: permanent, did })).dnc).toBe(-1);
  });

  it('picks the most specific sticky agent: cli_group, then cli, then all', async () => {
    const h = use();
    const { t, did, otherDid, groupId, agents } = await setup(h, 3);
    const [gAgent, cliAgent, allAgent] = agents as [number, number, number];
    const caller = uniquePhone();
    await events(
      h,
      t,
      agents.map((agentId) => ({ type: 'agent.login', agentId })),
    );
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, agentId: allAgent, type: 'all', expiry: -1 });
    expect((await decide(h, { ssid: t.ssid }, { caller, did, groupId })).stickyAgentId).toBe(allAgent);
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, agentId: cliAgent, type: 'cli', cli: did, expiry: -1 });
    expect((await decide(h, { ssid: t.ssid }, { caller, did, groupId })).stickyAgentId).toBe(cliAgent);
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, agentId: gAgent, type: 'cli_group', cli: did, groupid: groupId, expiry: -1 });
    expect(await decide(h, { ssid: t.ssid }, { caller, did, groupId: String(groupId) })).toEqual({ blocked: false, dnc: 0, stickyAgentId: gAgent });
    // Without the group the cli_group setting does not apply; on another DID only the all-scope one does.
    expect((await decide(h, { ssid: t.ssid }, { caller, did })).stickyAgentId).toBe(cliAgent);
    expect((await decide(h, { ssid: t.ssid }, { caller, did: otherDid, groupId })).stickyAgentId).toBe(allAgent);
  });

  it('skips sticky agents on break or logged out, and names none when no candidate is available', async () => {
    const h = use();
    const { t, did, groupId, agents } = await setup(h, 3);
    const [gAgent, cliAgent, allAgent] = agents as [number, number, number];
    const caller = uniquePhone();
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, agentId: allAgent, type: 'all', expiry: -1 });
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, agentId: cliAgent, type: 'cli', cli: did, expiry: -1 });
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, agentId: gAgent, type: 'cli_group', cli: did, groupid: groupId, expiry: -1 });
    // Nobody ever logged in.
    expect(await decide(h, { ssid: t.ssid }, { caller, did, groupId })).toEqual({ blocked: false, dnc: 0 });
    await events(
      h,
      t,
      agents.map((agentId) => ({ type: 'agent.login', agentId })),
    );
    await events(h, t, [{ type: 'agent.break.start', agentId: gAgent, reason: 'Lunch' }]);
    expect((await decide(h, { ssid: t.ssid }, { caller, did, groupId })).stickyAgentId).toBe(cliAgent);
    await events(h, t, [{ type: 'agent.logout', agentId: cliAgent }]);
    expect((await decide(h, { ssid: t.ssid }, { caller, did, groupId })).stickyAgentId).toBe(allAgent);
    await events(h, t, [{ type: 'agent.break.end', agentId: gAgent }]);
    expect((await decide(h, { ssid: t.ssid }, { caller, did, groupId })).stickyAgentId).toBe(gAgent);
  });

  it('ignores an expired sticky assignment and names no sticky agent for a blocked caller', async () => {
    const h = use();
    const { t, did, agents } = await setup(h, 2);
    const [soon, forever] = agents as [number, number];
    await events(
      h,
      t,
      agents.map((agentId) => ({ type: 'agent.login', agentId })),
    );
    const caller = uniquePhone();
    const expiry = Math.floor(h.clock.now() / 1000) + 60;
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, agentId: soon, type: 'cli', cli: did, expiry });
    await ok(h, '/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, agentId: forever, type: 'all', expiry: -1 });
    expect((await decide(h, { ssid: t.ssid }, { caller, did })).stickyAgentId).toBe(soon);
    h.clock.advance(120_000);
    expect((await decide(h, { ssid: t.ssid }, { caller, did })).stickyAgentId).toBe(forever);
    await ok(h, '/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: caller, DID: [did] });
    expect(await decide(h, { ssid: t.ssid }, { caller, did })).toEqual({ blocked: true, reason: 'did', dnc: 0 });
  });

  it('a blocked call (either reason) has no stickyAgentId even when a sticky agent of every scope is available (PRODUCT.md §6)', async () => {
    const h = use();
    const { t, did, groupId, agents } = await setup(h, 3);
    const [gAgent, cliAgent, allAgent] = agents as [number, number, number];
    await events(
      h,
      t,
      agents.map((agentId) => ({ type: 'agent.login', agentId })),
    );
    const caller = uniquePhone();
    const sticky = { ssid: t.ssid, contact: caller, expiry: -1 };
    await ok(h, '/api/v2/Directory/setSticky', { ...sticky, agentId: gAgent, type: 'cli_group', cli: did, groupid: groupId });
    await ok(h, '/api/v2/Directory/setSticky', { ...sticky, agentId: cliAgent, type: 'cli', cli: did });
    await ok(h, '/api/v2/Directory/setSticky', { ...sticky, agentId: allAgent, type: 'all' });
    await ok(h, '/api/v2/setDnc', { ssid: t.ssid, contact: caller, dnc: -1 });
    await ok(h, '/api/v2/Directory/create', { ssid: t.ssid, contact: caller, other: { blacklist: true } });
    // Blocked on the contact record: dnc and contact still reported, no sticky agent.
    for (const groupBody of [{ groupId }, {}]) {
      expect(await decide(h, { ssid: t.ssid }, { caller, did, ...groupBody })).toEqual({ blocked: true, reason: 'contact', dnc: -1, contact: caller });
    }
    // Blocked on the DID only: the same.
    await ok(h, '/api/v2/Directory/update', { ssid: t.ssid, contact: caller, other: { blacklist: false } });
    await ok(h, '/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: caller, DID: [did] });
    expect(await decide(h, { ssid: t.ssid }, { caller, did, groupId })).toEqual({ blocked: true, reason: 'did', dnc: -1, contact: caller });
    // Unblocked: the most specific sticky agent is named again.
    await ok(h, '/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: caller, DID: [] });
    expect(await decide(h, { ssid: t.ssid }, { caller, did, groupId })).toEqual({ blocked: false, dnc: -1, stickyAgentId: gAgent, contact: caller });
  });

  it('accepts a switch token and a client token; refuses agent principals (1015)', async () => {
    const h = use();
    const { t, did, groupId } = await setup(h, 0);
    const sw = await ok(h, '/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    expect(await decide(h, { userId: sw.userId, token: sw.token }, { caller: uniquePhone(), did })).toEqual({ blocked: false, dnc: 0 });
    const api = await ok(h, '/api/v2/auth/token', { ssid: t.ssid });
    expect((await decide(h, { userId: api.userId, token: api.token }, { caller: uniquePhone(), did })).blocked).toBe(false);
    const agent = await createAgent(h, t, { group: groupId });
    const s = await login(h, agent.email, agent.password);
    const res = await h.post('/api/v2/route/decide', { ssid: s.ssid, caller: uniquePhone(), did });
    expect(res.body).toMatchObject({ status: 'error', code: 1015 });
    const none = await h.post('/api/v2/route/decide', { caller: uniquePhone(), did });
    expect(none.body.code).toBe(1014);
  });

  it('validates the body: caller 1005, missing fields 1000, DID 1516, group 1006', async () => {
    const h = use();
    const { t, did } = await setup(h, 0);
    const other = await createTenant(h);
    const foreignDid = await createDid(h, other);
    const cases: [Record<string, unknown>, number][] = [
      [{ caller: '12345', did }, 1005],
      [{ caller: 'abc', did }, 1005],
      [{ caller: true, did }, 1005],
      [{ did }, 1000],
      [{ caller: uniquePhone() }, 1000],
      [{ caller: uniquePhone(), did: 'x1' }, 1516],
      [{ caller: uniquePhone(), did: foreignDid }, 1516],
      [{ caller: uniquePhone(), did: '1800999000111' }, 1516],
      [{ caller: uniquePhone(), did, groupId: 999 }, 1006],
      [{ caller: uniquePhone(), did, groupId: 'abc' }, 1000],
    ];
    for (const [body, code] of cases) {
      const res = await h.post('/api/v2/route/decide', { ssid: t.ssid, ...body });
      expect(res.body.code, JSON.stringify(body)).toBe(code);
      expect(res.body.status).toBe('error');
    }
    expect((await h.post('/api/v2/route/decide', {})).body.code).toBe(1047);
  });

  it('keeps tenants apart: another tenant’s blacklist, DNC and sticky settings do not apply', async () => {
    const h = use();
    const a = await setup(h, 1);
    const b = await setup(h, 0);
    const caller = uniquePhone();
    await ok(h, '/api/v2/Directory/create', { ssid: a.t.ssid, contact: caller, contactinfo: { name: 'Only In A' }, other: { blacklist: true } });
    await ok(h, '/api/v2/Directory/setDnc', { ssid: a.t.ssid, contact: caller, dnc: -1 });
    expect(await decide(h, { ssid: b.t.ssid }, { caller, did: b.did })).toEqual({ blocked: false, dnc: 0 });
  });
});
