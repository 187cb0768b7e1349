import { expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { listAgents } from '../helpers/agent-list.js';
import { createTenant, login, type Session } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

forEachDatabase('Agent/list', (use) => {
  it('filters by agentId, partial name and group; 1006 for an unknown or foreign group', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const sales = await createGroup(h, t, { groupId: 55, name: 'Sales' });
    const support = await createGroup(h, t, { name: 'Support' });
    const foreignGroup = await createGroup(h, other, { groupId: 77 });
    const anna = (await createAgent(h, t, { name: 'Anna Karenina', group: [sales, support] })).agentId;
    const hanna = (await createAgent(h, t, { name: 'Hanna Schmidt', group: support })).agentId;
    const bob = (await createAgent(h, t, { name: 'Bob Jr.' })).agentId;
    const ids = async (f: Record<string, unknown>) => (await listAgents(h, t, f)).map((r) => r.unique_id);
    expect(await ids({})).toEqual([anna, hanna, bob]);
    expect(await ids({ agentId: String(hanna) })).toEqual([hanna]);
    expect(await ids({ agentId: '' })).toEqual([anna, hanna, bob]);
    expect(await ids({ name: 'ANNA' })).toEqual([anna, hanna]);
    expect(await ids({ name: '%' })).toEqual([]);
    expect(await ids({ name: '_' })).toEqual([]);
    expect(await ids({ name: 'jr.' })).toEqual([bob]);
    expect(await ids({ name: 'nna', groupid: '55' })).toEqual([anna]);
    expect(await ids({ groupid: support })).toEqual([anna, hanna]);
    const recs = await listAgents(h, t, { agentId: anna });
    expect(recs[0]!.groupNames).toEqual([{ '55': 'Sales' }, { [String(support)]: 'Support' }]);
    for (const groupid of [foreignGroup, 4242, 'sales']) {
      const res = await h.post('/api/v2/Agent/list', { ssid: t.ssid, groupid });
      expect(res.body.code, String(groupid)).toBe(1006);
    }
  });

  it('quick answers minimal records; passwords are never returned', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const a = await createAgent(h, t, { name: 'Quick Silver', group: g });
    const res = await h.post<{ response: unknown[] }>('/api/v2/Agent/list', { ssid: t.ssid, quick: true });
    expect(res.body.response).toEqual([
      {
        unique_id: a.agentId,
        nm: 'Quick Silver',
        email: a.email,
        phone: expect.stringMatching(/^\d+$/),
        dest_type: 'MOBILE',
        dest_value: expect.stringMatching(/^\d+$/),
        group: [g],
        status: 1,
      },
    ]);
    const full = await listAgents(h, t);
    expect(full[0]!.password).toBe('');
    expect(JSON.stringify(full)).not.toContain('scrypt');
    expect((await h.post('/api/v2/Agent/list', { ssid: t.ssid, quick: 'yes' })).body.code).toBe(1000);
  });

  it('never shows another account’s agents', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const theirs = await createAgent(h, other);
    expect(await listAgents(h, t)).toEqual([]);
    expect(await listAgents(h, t, { agentId: theirs.agentId })).toEqual([]);
  });

  it('call_pass is shown only to callers holding agent.manage (clients hold it); everyone else reads ""', async () => {
    const h = use();
    const t = await createTenant(h);
    const viewer = await createRole(h, t, { permissions: ['agent.view'] });
    const manager = await createRole(h, t, { permissions: ['agent.view', 'agent.manage'] });
    const target = await createAgent(h, t, { call_pass: '24681357' });
    const v = await createAgent(h, t, { role: viewer, call_pass: '11223344' });
    const m = await createAgent(h, t, { role: manager });
    const callPasses = async (session: Session) => Object.fromEntries((await listAgents(h, session)).map((r) => [r.unique_id, r.call_pass] as const));
    // The client (every permission) and an agent with agent.manage read the passwords.
    expect((await callPasses(t))[target.agentId]).toBe('24681357');
    expect((await callPasses(await login(h, m.email, m.password)))[target.agentId]).toBe('24681357');
    // agent.view alone: empty strings, its own record's included; the rest of the record is unchanged.
    const asViewer = await login(h, v.email, v.password);
    const seen = await callPasses(asViewer);
    expect(Object.keys(seen)).toHaveLength(3);
    expect(new Set(Object.values(seen))).toEqual(new Set(['']));
    const rec = (await listAgents(h, asViewer, { agentId: target.agentId }))[0]!;
    expect(rec).toMatchObject({ unique_id: target.agentId, call_pass: '', password: '', email: target.email });
    // An api token of the viewer acts with the same rights.
    const tok = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: asViewer.ssid })).body;
    const viaToken = await h.post<{ response: Array<{ call_pass: string }> }>('/api/v2/Agent/list', { userId: tok.userId, token: tok.token });
    expect(viaToken.body.response.map((r) => r.call_pass)).toEqual(['', '', '']);
  });
});
