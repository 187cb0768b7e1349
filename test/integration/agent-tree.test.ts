import { expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { agentRecord, listAgents } from '../helpers/agent-list.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

forEachDatabase('agents: parent tree, visibility and deletion', (use) => {
  it('maintains parent paths on create and re-parenting, descendants included', async () => {
    const h = use();
    const t = await createTenant(h);
    const a = (await createAgent(h, t)).agentId;
    const b = (await createAgent(h, t, { parent: a })).agentId;
    const c = (await createAgent(h, t, { parent: String(b) })).agentId;
    const d = (await createAgent(h, t)).agentId;
    const path = async (id: number) => (await agentRecord(h, t, id))!.parent;
    expect(await path(a)).toBe(',START,');
    expect(await path(b)).toBe(`,START,${a},`);
    expect(await path(c)).toBe(`,START,${a},${b},`);
    // b (with c below it) moves under d.
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: b, parent: d })).body.status).toBe('success');
    expect(await path(b)).toBe(`,START,${d},`);
    expect(await path(c)).toBe(`,START,${d},${b},`);
    expect(await path(a)).toBe(',START,');
    // Back to the root.
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: b, parent: null })).body.status).toBe('success');
    expect(await path(b)).toBe(',START,');
    expect(await path(c)).toBe(`,START,${b},`);
    // "0" and "" also mean the root.
    await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: c, parent: a });
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: c, parent: '0' })).body.status).toBe('success');
    expect(await path(c)).toBe(',START,');
  });

  it('refuses a parent that is the agent itself or below it (1506), or unknown (1504)', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const a = (await createAgent(h, t)).agentId;
    const b = (await createAgent(h, t, { parent: a })).agentId;
    const c = (await createAgent(h, t, { parent: b })).agentId;
    const foreign = (await createAgent(h, other)).agentId;
    for (const parent of [a, b, c]) {
      expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a, parent })).body.code, `a under ${parent}`).toBe(1506);
    }
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: b, parent: c })).body.code).toBe(1506);
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: b, parent: foreign })).body.code).toBe(1504);
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: b, parent: 99999999 })).body.code).toBe(1504);
    // Nothing moved.
    expect((await agentRecord(h, t, c))!.parent).toBe(`,START,${a},${b},`);
  });

  it('deletes softly: flags set, children move up, e-mail free again', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const a = (await createAgent(h, t)).agentId;
    const b = await createAgent(h, t, { parent: a, group: g });
    const c = (await createAgent(h, t, { parent: b.agentId })).agentId;
    const d = (await createAgent(h, t, { parent: c })).agentId;
    const del = await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId: b.agentId });
    expect(del.body).toMatchObject({ status: 'success', code: 200 });
    expect(await agentRecord(h, t, b.agentId)).toBeUndefined();
    expect((await listAgents(h, t)).map((r) => r.unique_id)).toEqual([a, c, d]);
    expect((await agentRecord(h, t, c))!.parent).toBe(`,START,${a},`);
    expect((await agentRecord(h, t, d))!.parent).toBe(`,START,${a},${c},`);
    expect(await listAgents(h, t, { groupid: g })).toEqual([]);
    // The row stays, flagged: the agent shows nowhere, and its e-mail can be used again.
    const row = await h.db.get<{ is_deleted: number; pre_deleted: number }>('SELECT is_deleted, pre_deleted FROM agents WHERE id = $1', [b.agentId]);
    expect(row).toEqual({ is_deleted: 1, pre_deleted: 1 });
    await createAgent(h, t, { email: b.email });
  });

  it('can_see 0 limits an agent to itself and the agents below it', async () => {
    const h = use();
    const t = await createTenant(h);
    const sup = await createRole(h, t, { permissions: ['agent.view', 'agent.manage', 'group.manage'], can_see: 0 });
    const g = await createGroup(h, t);
    const boss = await createAgent(h, t, { role: sup });
    const mine = (await createAgent(h, t, { parent: boss.agentId })).agentId;
    const deeper = (await createAgent(h, t, { parent: mine })).agentId;
    const outside = (await createAgent(h, t)).agentId;
    const s = await login(h, boss.email, boss.password);
    expect((await listAgents(h, s)).map((r) => r.unique_id)).toEqual([boss.agentId, mine, deeper]);
    expect(await listAgents(h, s, { agentId: outside })).toEqual([]);
    // An agent outside the subtree behaves as if it did not exist.
    expect((await h.post('/api/v2/Agent/update', { ssid: s.ssid, agentId: outside, name: 'Changed' })).body.code).toBe(1509);
    expect((await h.post('/api/v2/Agent/delete', { ssid: s.ssid, agentId: outside })).body.code).toBe(1509);
    expect((await h.post('/api/v2/Agent/setCad', { ssid: s.ssid, agentIds: [outside, mine] })).body).toMatchObject({
      data: { updatedAgents: [{ agentId: String(mine), status: 'success' }], errors: [{ agentId: String(outside) }] },
    });
    expect((await h.post('/api/v2/Agent/updateAgentGroupMapping', { ssid: s.ssid, agentId: outside, group: { [g]: { receive_call: 'Y' } } })).body.code).toBe(
      1509,
    );
    expect((await h.post('/api/v2/Agent/update', { ssid: s.ssid, agentId: mine, parent: outside })).body.code).toBe(1504);
    // Agents it creates land in its subtree (below itself when no parent is given).
    const created = await h.post<{ data: { agentId: number } }>('/api/v2/Agent/create', {
      ssid: s.ssid,
      name: 'New Hire',
      email: 'new-hire@example.com',
      password: 'password1',
      phone: '9876500001',
      call_pass: '11112222',
      dest_type: 'MOBILE',
      dest_value: '9876500001',
      role: sup,
    });
    expect(created.body.status).toBe('success');
    expect((await agentRecord(h, s, created.body.data.agentId))!.parent).toBe(`,START,${boss.agentId},`);
    const outsideParent = await h.post('/api/v2/Agent/create', {
      ssid: s.ssid,
      name: 'New Hire',
      email: 'new-hire2@example.com',
      password: 'password1',
      phone: '9876500001',
      call_pass: '11112222',
      dest_type: 'MOBILE',
      dest_value: '9876500001',
      role: sup,
      parent: outside,
    });
    expect(outsideParent.body.code).toBe(1504);
    // The client sees everyone.
    expect((await listAgents(h, t)).length).toBe(5);
  });

  it('can_see 1 shows every agent of the account and none of another', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const all = await createRole(h, t, { permissions: ['agent.view'], can_see: 1 });
    const viewer = await createAgent(h, t, { role: all });
    const root = (await createAgent(h, t)).agentId;
    await createAgent(h, other);
    const s = await login(h, viewer.email, viewer.password);
    expect((await listAgents(h, s)).map((r) => r.unique_id).sort()).toEqual([viewer.agentId, root].sort());
  });
});
