import { expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

forEachDatabase('roles grant permissions', (use) => {
  it('an agent holds exactly its role’s permissions; 1015 names the missing one', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const role = await createRole(h, t, { permissions: ['agent.view'] });
    const agent = await createAgent(h, t, { role });
    const s = await login(h, agent.email, agent.password);
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.status).toBe('success');
    expect((await h.post('/api/v2/group/list', { ssid: s.ssid })).body.status).toBe('success');
    const denied = [
      ['/api/v2/role/list', {}, 'role.view'],
      ['/api/v2/role/create', { name: 'x', permissions: [] }, 'role.manage'],
      ['/api/v2/role/update', { roleId: role, name: 'x' }, 'role.manage'],
      ['/api/v2/role/delete', { roleId: role }, 'role.manage'],
      ['/api/v2/did/list', {}, 'number.manage'],
      ['/api/v2/Agent/create', { name: 'x' }, 'agent.manage'],
      ['/api/v2/Agent/update', { agentId: agent.agentId, name: 'x' }, 'agent.manage'],
      ['/api/v2/Agent/delete', { agentId: agent.agentId }, 'agent.manage'],
      ['/api/v2/Agent/setCad', { agentIds: [agent.agentId] }, 'agent.manage'],
      ['/api/v2/Agent/unsetCad', { agentIds: [agent.agentId] }, 'agent.manage'],
      ['/api/v2/Agent/updateAgentGroupMapping', { agentId: agent.agentId, group: { [g]: { receive_call: 'Y' } } }, 'group.manage'],
      ['/api/v2/group/create', { name: 'x' }, 'group.manage'],
    ] as const;
    for (const [path, body, perm] of denied) {
      const res = await h.post(path, { ssid: s.ssid, ...body });
      expect(res.body.code, path).toBe(1015);
      expect(res.body.message, path).toContain(perm);
    }
  });

  it('role changes reach logged-in agents at once (status, permissions, deletion)', async () => {
    const h = use();
    const t = await createTenant(h);
    const role = await createRole(h, t, { permissions: ['agent.view'] });
    const agent = await createAgent(h, t, { role });
    const s = await login(h, agent.email, agent.password);
    expect((await h.post('/api/v2/role/list', { ssid: s.ssid })).body.code).toBe(1015);
    await h.post('/api/v2/role/update', { ssid: t.ssid, roleId: role, permissions: ['agent.view', 'role.view'] });
    expect((await h.post('/api/v2/role/list', { ssid: s.ssid })).body.status).toBe('success');
    await h.post('/api/v2/role/update', { ssid: t.ssid, roleId: role, status: 0 });
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.code).toBe(1015);
    await h.post('/api/v2/role/update', { ssid: t.ssid, roleId: role, status: 1 });
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.status).toBe('success');
    await h.post('/api/v2/role/delete', { ssid: t.ssid, roleId: role });
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.code).toBe(1015);
    // Moving the agent to another role gives it that role's permissions.
    const other = await createRole(h, t, { permissions: ['agent.view'] });
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: agent.agentId, role: other })).body.status).toBe('success');
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.status).toBe('success');
  });

  it('an inactive or deleted agent cannot log in and its sessions stop working', async () => {
    const h = use();
    const t = await createTenant(h);
    const agent = await createAgent(h, t);
    const s = await login(h, agent.email, agent.password);
    await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: agent.agentId, status: 0 });
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.code).toBe(1014);
    expect((await h.post('/api/v2/auth/login', { username: agent.email, password: agent.password })).body.code).toBe(1014);
    await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: agent.agentId, status: 1 });
    const s2 = await login(h, agent.email.toUpperCase(), agent.password);
    await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId: agent.agentId });
    expect((await h.post('/api/v2/Agent/list', { ssid: s2.ssid })).body.code).toBe(1014);
    expect((await h.post('/api/v2/auth/login', { username: agent.email, password: agent.password })).body.code).toBe(1014);
  });

  it('an agent cannot grant permissions or visibility it does not hold', async () => {
    const h = use();
    const t = await createTenant(h);
    const role = await createRole(h, t, { permissions: ['role.manage', 'role.view', 'agent.view'], can_see: 0 });
    const agent = await createAgent(h, t, { role });
    const s = await login(h, agent.email, agent.password);
    const up = await h.post('/api/v2/role/create', { ssid: s.ssid, name: 'Boss', permissions: ['agent.view', 'agent.manage'] });
    expect(up.body.code).toBe(1015);
    expect(up.body.message).toContain('agent.manage');
    expect((await h.post('/api/v2/role/update', { ssid: s.ssid, roleId: role, permissions: ['number.manage'] })).body.code).toBe(1015);
    expect((await h.post('/api/v2/role/create', { ssid: s.ssid, name: 'Seer', permissions: [], can_see: 1 })).body.code).toBe(1015);
    const fine = await h.post<{ data: { roleId: number } }>('/api/v2/role/create', { ssid: s.ssid, name: 'Viewer', permissions: ['agent.view'], can_see: 0 });
    expect(fine.body.status).toBe('success');
    const list = await h.post<{ response: Array<{ unique_id: number; create_by: string; create_by_type: string }> }>('/api/v2/role/list', { ssid: s.ssid });
    expect(list.body.response.find((r) => r.unique_id === fine.body.data.roleId)).toMatchObject({ create_by: s.userId, create_by_type: 'agent' });
  });

  it('an agent manager cannot give an agent (itself included) a role with rights it lacks', async () => {
    const h = use();
    const t = await createTenant(h);
    const admin = await createRole(h, t);
    const mgrRole = await createRole(h, t, { permissions: ['agent.manage', 'agent.view'] });
    const seeAll = await createRole(h, t, { permissions: ['agent.view'], can_see: 1 });
    const mgr = await createAgent(h, t, { role: mgrRole });
    const s = await login(h, mgr.email, mgr.password);
    const self = await h.post('/api/v2/Agent/update', { ssid: s.ssid, agentId: mgr.agentId, role: admin });
    expect(self.body.code).toBe(1015);
    const hire = await h.post('/api/v2/Agent/create', {
      ssid: s.ssid,
      name: 'Puppet',
      email: 'puppet@example.com',
      password: 'password1',
      phone: '9876500002',
      call_pass: '11112222',
      dest_type: 'MOBILE',
      dest_value: '9876500002',
      role: admin,
    });
    expect(hire.body.code).toBe(1015);
    expect(hire.body.message).toContain('missing permission');
    // A role within its own rights is fine (can_see 1 included: the manager's role has can_see 1).
    const ok = await h.post('/api/v2/Agent/create', {
      ssid: s.ssid,
      name: 'Viewer',
      email: 'viewer@example.com',
      password: 'password1',
      phone: '9876500003',
      call_pass: '11112222',
      dest_type: 'MOBILE',
      dest_value: '9876500003',
      role: seeAll,
    });
    expect(ok.body.status).toBe('success');
  });

  it('an agent manager cannot take over the login of an agent with more rights (1015)', async () => {
    const h = use();
    const t = await createTenant(h);
    const mgrRole = await createRole(h, t, { permissions: ['agent.manage', 'agent.view'] });
    const admin = await createAgent(h, t, { role: await createRole(h, t) });
    const peer = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.view'] }) });
    const mgr = await createAgent(h, t, { role: mgrRole });
    const s = await login(h, mgr.email, mgr.password);
    for (const patch of [{ password: 'taken-over-1' }, { email: 'mine@example.com' }, { email: 'mine2@example.com', name: 'Still Admin' }]) {
      const res = await h.post('/api/v2/Agent/update', { ssid: s.ssid, agentId: admin.agentId, ...patch });
      expect(res.body.code, JSON.stringify(patch)).toBe(1015);
    }
    await login(h, admin.email, admin.password);
    // Other fields of that agent, the login of an agent within its rights, and its own login stay open to it.
    expect((await h.post('/api/v2/Agent/update', { ssid: s.ssid, agentId: admin.agentId, favorite: 'x' })).body.status).toBe('success');
    expect((await h.post('/api/v2/Agent/update', { ssid: s.ssid, agentId: peer.agentId, password: 'reset-by-mgr' })).body.status).toBe('success');
    await login(h, peer.email, 'reset-by-mgr');
    expect((await h.post('/api/v2/Agent/update', { ssid: s.ssid, agentId: mgr.agentId, password: 'my-new-password' })).body.status).toBe('success');
    // The client may change any login.
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: admin.agentId, password: 'client-reset' })).body.status).toBe('success');
    await login(h, admin.email, 'client-reset');
  });

  it('each administration permission opens exactly its own operations', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const target = await createAgent(h, t);
    const role = await createRole(h, t, { permissions: [] });
    const ops: Record<string, Array<[string, Record<string, unknown>]>> = {
      'agent.view': [
        ['/api/v2/Agent/list', {}],
        ['/api/v2/group/list', {}],
      ],
      'agent.manage': [
        ['/api/v2/Agent/setCad', { agentIds: [target.agentId] }],
        ['/api/v2/Agent/update', { agentId: target.agentId, favorite: 'x' }],
      ],
      'group.manage': [
        ['/api/v2/group/update', { groupId: g, name: 'Renamed' }],
        ['/api/v2/Agent/updateAgentGroupMapping', { agentId: target.agentId, group: { [g]: { receive_call: 'N' } } }],
      ],
      'role.view': [['/api/v2/role/list', {}]],
      'role.manage': [['/api/v2/role/update', { roleId: role, name: 'Renamed role' }]],
      'number.manage': [['/api/v2/did/list', {}]],
    };
    const perms = Object.keys(ops);
    for (const perm of perms) {
      const only = await createAgent(h, t, { role: await createRole(h, t, { permissions: [perm] }) });
      const allBut = await createAgent(h, t, { role: await createRole(h, t, { permissions: perms.filter((p) => p !== perm) }) });
      const sOnly = await login(h, only.email, only.password);
      const sAllBut = await login(h, allBut.email, allBut.password);
      for (const [path, body] of ops[perm]!) {
        const granted = await h.post(path, { ssid: sOnly.ssid, ...body });
        expect(granted.body.status, `${perm} ${path} ${JSON.stringify(granted.body)}`).toBe('success');
        const denied = await h.post(path, { ssid: sAllBut.ssid, ...body });
        expect(denied.body.code, `${perm} ${path}`).toBe(1015);
        expect(denied.body.message).toContain(perm);
      }
    }
  });

  it('role/list agentid answers nothing for an agent outside a can_see 0 caller’s subtree', async () => {
    const h = use();
    const t = await createTenant(h);
    const sup = await createRole(h, t, { permissions: ['role.view'], can_see: 0 });
    const other = await createRole(h, t, { permissions: [] });
    const boss = await createAgent(h, t, { role: sup });
    const below = await createAgent(h, t, { role: other, parent: boss.agentId });
    const outside = await createAgent(h, t, { role: other });
    const s = await login(h, boss.email, boss.password);
    const ids = async (agentid: number) =>
      (await h.post<{ response: Array<{ unique_id: number }> }>('/api/v2/role/list', { ssid: s.ssid, agentid })).body.response.map((r) => r.unique_id);
    expect(await ids(below.agentId)).toEqual([other]);
    expect(await ids(boss.agentId)).toEqual([sup]);
    expect(await ids(outside.agentId)).toEqual([]);
  });
});
