import { expect, it } from 'vitest';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

const HOUR = 3600;

forEachDatabase('directory: routing facts for route/decide', (use) => {
  async function setup() {
    const h = use();
    const t = await createTenant(h);
    const did = await createDid(h, t);
    const otherDid = await createDid(h, t);
    const group = await createGroup(h, t);
    const agent = await createAgent(h, t, { group });
    return { h, t, did, otherDid, group, agent: agent.agentId, facts: h.services.directory };
  }

  it('an unknown caller: not known, not blocked, dnc 0, no candidates', async () => {
    const { t, did, facts } = await setup();
    expect(await facts.routingFacts(t.accountId, '+91 98765-00001', did, null)).toEqual({
      contact: '919876500001',
      known: false,
      blocked: null,
      dnc: 0,
      stickyCandidates: [],
    });
  });

  it('rejects a caller that is not a number (1005)', async () => {
    const { t, did, facts } = await setup();
    await expect(facts.routingFacts(t.accountId, 'abc', did, null)).rejects.toMatchObject({ code: 1005 });
  });

  it('contact-level blacklist wins over the per-DID blacklist; the DID list applies only to its DIDs', async () => {
    const { h, t, did, otherDid, facts } = await setup();
    const caller = '919876500002';
    await h.post('/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: caller, DID: [did] });
    expect((await facts.routingFacts(t.accountId, caller, did, null)).blocked).toBe('did');
    expect((await facts.routingFacts(t.accountId, caller, otherDid, null)).blocked).toBeNull();
    expect((await facts.routingFacts(t.accountId, caller, null, null)).blocked).toBeNull();
    await h.post('/api/v2/Directory/create', { ssid: t.ssid, contact: caller, other: { blacklist: true } });
    const f = await facts.routingFacts(t.accountId, caller, did, null);
    expect(f).toMatchObject({ known: true, blocked: 'contact' });
    expect((await facts.routingFacts(t.accountId, caller, otherDid, null)).blocked).toBe('contact');
  });

  it('dnc is the current status; an expired timestamp reads 0', async () => {
    const { h, t, did, facts } = await setup();
    const caller = '919876500003';
    const until = Math.floor(h.clock.now() / 1000) + HOUR;
    await h.post('/api/v2/setDnc', { ssid: t.ssid, contact: caller, dnc: until });
    expect((await facts.routingFacts(t.accountId, caller, did, null)).dnc).toBe(until);
    h.clock.advance((HOUR + 1) * 1000);
    expect((await facts.routingFacts(t.accountId, caller, did, null)).dnc).toBe(0);
  });

  it('sticky candidates: only settings that apply to this DID and group, most specific first, expired ones left out', async () => {
    const { h, t, did, otherDid, group, facts } = await setup();
    const caller = '919876500004';
    const [a1, a2, a3, a4] = await Promise.all([1, 2, 3, 4].map(() => createAgent(h, t, { group }).then((a) => a.agentId)));
    const now = Math.floor(h.clock.now() / 1000);
    const set = async (body: Record<string, unknown>) => {
      const res = await h.post('/api/v2/Directory/setSticky', { ssid: t.ssid, contact: caller, ...body });
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    };
    await set({ agentId: a1, type: 'all', expiry: -1 });
    await set({ agentId: a2, type: 'cli', cli: did, expiry: now + HOUR });
    await set({ agentId: a3, type: 'cli_group', cli: did, groupid: group, expiry: -1 });
    await set({ agentId: a4, type: 'cli', cli: otherDid, expiry: -1 });

    expect((await facts.routingFacts(t.accountId, caller, did, group)).stickyCandidates).toEqual([
      { agentId: a3, scope: 'cli_group' },
      { agentId: a2, scope: 'cli' },
      { agentId: a1, scope: 'all' },
    ]);
    // Another group: the cli_group setting does not apply.
    expect((await facts.routingFacts(t.accountId, caller, did, group + 1)).stickyCandidates.map((c) => c.agentId)).toEqual([a2, a1]);
    // No DID: only the all-scope setting.
    expect((await facts.routingFacts(t.accountId, caller, null, group)).stickyCandidates.map((c) => c.agentId)).toEqual([a1]);
    // The cli setting expires.
    h.clock.advance((HOUR + 1) * 1000);
    expect((await facts.routingFacts(t.accountId, caller, did, group)).stickyCandidates.map((c) => c.agentId)).toEqual([a3, a1]);
  });

  it("another tenant's settings for the same number do not leak", async () => {
    const { h, t, did, facts } = await setup();
    const other = await createTenant(h);
    const caller = '919876500005';
    await h.post('/api/v2/Directory/create', { ssid: t.ssid, contact: caller, other: { blacklist: true } });
    await h.post('/api/v2/setDnc', { ssid: t.ssid, contact: caller, dnc: -1 });
    expect(await facts.routingFacts(other.accountId, caller, did, null)).toEqual({
      contact: caller,
      known: false,
      blocked: null,
      dnc: 0,
      stickyCandidates: [],
    });
  });
});
