import { expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { agentRecord } from '../helpers/agent-list.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

forEachDatabase('Agent/updateAgentGroupMapping', (use) => {
  it('overwrites the listed groups and leaves the others unchanged', async () => {
    const h = use();
    const t = await createTenant(h);
    const g1 = await createGroup(h, t, { groupId: 55 });
    const g2 = await createGroup(h, t);
    const g3 = await createGroup(h, t);
    const a = await createAgent(h, t, { group: [g1, g2] });
    const res = await h.post('/api/v2/Agent/updateAgentGroupMapping', {
      ssid: t.ssid,
      agentId: String(a.agentId),
      group: { [g2]: { receive_call: 'N' }, [g3]: { receive_call: 'Y' } },
    });
    expect(res.body).toMatchObject({ status: 'success', code: 200, message: expect.any(String) });
    const rec = (await agentRecord(h, t, a.agentId))!;
    expect(rec.group).toEqual([g1, g2, g3]);
    expect(rec.groupMapping).toEqual({ [g1]: { receive_call: 'Y' }, [g2]: { receive_call: 'N' }, [g3]: { receive_call: 'Y' } });
    await h.post('/api/v2/Agent/updateAgentGroupMapping', { ssid: t.ssid, agentId: a.agentId, group: { [g2]: { receive_call: 'Y' } } });
    expect((await agentRecord(h, t, a.agentId))!.groupMapping[String(g2)]).toEqual({ receive_call: 'Y' });
  });

  it('1509 for unknown or foreign agents, 1505 for unknown groups or bad data; nothing changes', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const g = await createGroup(h, t);
    const foreignGroup = await createGroup(h, other, { groupId: 901 });
    const foreignAgent = await createAgent(h, other, { group: foreignGroup });
    const a = await createAgent(h, t, { group: g });
    const ok = { [g]: { receive_call: 'N' } };
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ agentId: foreignAgent.agentId, group: ok }, 1509],
      [{ agentId: 99999999, group: ok }, 1509],
      [{ agentId: 'x', group: ok }, 1509],
      [{ agentId: a.agentId, group: { [foreignGroup]: { receive_call: 'Y' } } }, 1505],
      [{ agentId: a.agentId, group: { [g]: { receive_call: 'N' }, 4242: { receive_call: 'Y' } } }, 1505],
      [{ agentId: a.agentId, group: { [g]: { receive_call: 'yes' } } }, 1505],
      [{ agentId: a.agentId, group: { [g]: {} } }, 1505],
      [{ agentId: a.agentId, group: { [g]: 'N' } }, 1505],
      [{ agentId: a.agentId, group: {} }, 1505],
      [{ agentId: a.agentId, group: 'all' }, 1505],
      [{ agentId: a.agentId }, 1000],
      [{ group: ok }, 1000],
    ];
    for (const [body, code] of cases) {
      const res = await h.post('/api/v2/Agent/updateAgentGroupMapping', { ssid: t.ssid, ...body });
      expect(res.body.code, JSON.stringify(body)).toBe(code);
    }
    expect((await agentRecord(h, t, a.agentId))!.groupMapping).toEqual({ [g]: { receive_call: 'Y' } });
    expect((await agentRecord(h, other, foreignAgent.agentId))!.group).toEqual([foreignGroup]);
  });

  it('needs group.manage (agent.manage alone is not enough)', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const a = await createAgent(h, t);
    const mgr = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.manage', 'agent.view'] }) });
    const s = await login(h, mgr.email, mgr.password);
    const res = await h.post('/api/v2/Agent/updateAgentGroupMapping', { ssid: s.ssid, agentId: a.agentId, group: { [g]: { receive_call: 'Y' } } });
    expect(res.body.code).toBe(1015);
    expect(res.body.message).toContain('group.manage');
    const gm = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['group.manage'] }) });
    const s2 = await login(h, gm.email, gm.password);
    const ok = await h.post('/api/v2/Agent/updateAgentGroupMapping', { ssid: s2.ssid, agentId: a.agentId, group: { [g]: { receive_call: 'Y' } } });
    expect(ok.body.status).toBe('success');
  });
});
