import { expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { listAgents } from '../helpers/agent-list.js';
import { createTenant } from '../helpers/factories.js';
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
});
