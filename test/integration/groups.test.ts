import { expect, it } from 'vitest';
import { createAgent, createDid, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

interface GroupItem {
  groupId: number;
  name: string;
  create_date: number;
  agentCount: number;
}

forEachDatabase('groups', (use) => {
  it('factories create groups, DIDs, roles and agents', async () => {
    const h = use();
    const t = await createTenant(h);
    expect(await createGroup(h, t, { groupId: 55 })).toBe(55);
    expect(await createDid(h, t)).toMatch(/^\d+$/);
    const role = await createRole(h, t);
    const a = await createAgent(h, t, { role, group: 55 });
    expect(a.agentId).toBeGreaterThan(0);
    const s = await login(h, a.email, a.password);
    expect(s.userId).toBe(`agent-${a.agentId}`);
  });

  it('creates groups with explicit or next free ids, per account; 1505 when the id is taken', async () => {
    const h = use();
    const a = await createTenant(h);
    const b = await createTenant(h);
    expect(await createGroup(h, a, { groupId: '55' })).toBe(55);
    expect(await createGroup(h, a)).toBe(56);
    // Every tenant may have its own group 55.
    expect(await createGroup(h, b, { groupId: 55 })).toBe(55);
    expect(await createGroup(h, b, { name: 'Next' })).toBe(56);
    const taken = await h.post('/api/v2/group/create', { ssid: a.ssid, groupId: 55, name: 'Again' });
    expect(taken.body).toMatchObject({ status: 'error', code: 1505 });
  });

  it('validates group input', async () => {
    const h = use();
    const t = await createTenant(h);
    const cases = [
      [{ name: '' }, 1000],
      [{ name: '   ' }, 1000],
      [{}, 1000],
      [{ name: 'x', groupId: 'abc' }, 1000],
      [{ name: 'x', groupId: -4 }, 1000],
      [{ name: 'x'.repeat(101) }, 1000],
    ] as const;
    for (const [body, code] of cases) {
      const res = await h.post('/api/v2/group/create', { ssid: t.ssid, ...body });
      expect(res.body.code, JSON.stringify(body)).toBe(code);
    }
  });

  it('renames and deletes groups; 1006 for unknown and foreign groups', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const g = await createGroup(h, t, { name: 'Sales' });
    const foreign = await createGroup(h, other, { groupId: 900 });
    const upd = await h.post('/api/v2/group/update', { ssid: t.ssid, groupId: g, name: 'Support' });
    expect(upd.body).toMatchObject({ status: 'success', code: 200 });
    const list = await h.post<{ data: GroupItem[] }>('/api/v2/group/list', { ssid: t.ssid });
    expect(list.body.data.map((x) => [x.groupId, x.name])).toEqual([[g, 'Support']]);
    expect(list.body.data[0]!.create_date).toBe(Math.floor(h.clock.now() / 1000));
    for (const path of ['/api/v2/group/update', '/api/v2/group/delete']) {
      for (const groupId of [foreign, 9999, 'x1']) {
        const res = await h.post(path, { ssid: t.ssid, groupId, name: 'New' });
        expect(res.body.code, `${path} ${groupId}`).toBe(1006);
      }
    }
    // The foreign group is untouched.
    const theirs = await h.post<{ data: GroupItem[] }>('/api/v2/group/list', { ssid: other.ssid });
    expect(theirs.body.data).toHaveLength(1);
    const del = await h.post('/api/v2/group/delete', { ssid: t.ssid, groupId: g });
    expect(del.body.status).toBe('success');
    const after = await h.post<{ data: GroupItem[] }>('/api/v2/group/list', { ssid: t.ssid });
    expect(after.body.data).toEqual([]);
  });

  it('counts agents per group and drops mappings with the group', async () => {
    const h = use();
    const t = await createTenant(h);
    const g1 = await createGroup(h, t);
    const g2 = await createGroup(h, t);
    const role = await createRole(h, t);
    const a1 = await createAgent(h, t, { role, group: [g1, g2] });
    await createAgent(h, t, { role, group: g1 });
    const list = await h.post<{ data: GroupItem[] }>('/api/v2/group/list', { ssid: t.ssid });
    expect(list.body.data.map((x) => x.agentCount)).toEqual([2, 1]);
    await h.post('/api/v2/group/delete', { ssid: t.ssid, groupId: g1 });
    const agents = await h.post<{ response: Array<{ unique_id: number; group: number[] }> }>('/api/v2/Agent/list', { ssid: t.ssid, agentId: a1.agentId });
    expect(agents.body.response[0]!.group).toEqual([g2]);
    // A re-created group with the same id starts empty.
    await createGroup(h, t, { groupId: g1 });
    const again = await h.post<{ data: GroupItem[] }>('/api/v2/group/list', { ssid: t.ssid });
    expect(again.body.data.find((x) => x.groupId === g1)!.agentCount).toBe(0);
  });

  it('requires agent.view for group/list and group.manage for changes', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const viewer = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.view'] }) });
    const s = await login(h, viewer.email, viewer.password);
    expect((await h.post('/api/v2/group/list', { ssid: s.ssid })).body.status).toBe('success');
    for (const [path, body] of [
      ['/api/v2/group/create', { name: 'x' }],
      ['/api/v2/group/update', { groupId: g, name: 'x' }],
      ['/api/v2/group/delete', { groupId: g }],
    ] as const) {
      const res = await h.post(path, { ssid: s.ssid, ...body });
      expect(res.body, path).toMatchObject({ code: 1015 });
      expect(res.body.message).toContain('group.manage');
    }
    const none = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['group.manage'] }) });
    const s2 = await login(h, none.email, none.password);
    const res = await h.post('/api/v2/group/list', { ssid: s2.ssid });
    expect(res.body.code).toBe(1015);
    expect(res.body.message).toContain('agent.view');
    expect((await h.post('/api/v2/group/create', { ssid: s2.ssid, name: 'ok' })).body.status).toBe('success');
  });

  it('concurrent creations without an id get distinct ids', async () => {
    const h = use();
    const t = await createTenant(h);
    const ids = await Promise.all(Array.from({ length: 6 }, () => createGroup(h, t)));
    expect(new Set(ids).size).toBe(6);
    expect([...ids].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
