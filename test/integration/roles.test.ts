import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

interface RoleRecord {
  _id: string;
  name: string;
  can_see: number;
  create_date: number;
  create_by: string;
  create_by_type: string;
  status: number;
  user_id: string;
  unique_id: number;
  agCount: number;
  permissions: string[];
}
interface RoleList {
  response: RoleRecord[];
  currentPage: number;
  totalPages: number;
  totalRecords: number;
}

forEachDatabase('roles', (use) => {
  it('lists role records with every field of the spec, agCount counting live agents', async () => {
    const h = use();
    const t = await createTenant(h);
    const roleId = await createRole(h, t, { name: 'Supervisor', permissions: ['agent.view', 'agent.live'], can_see: 0 });
    await createAgent(h, t, { role: roleId });
    const gone = await createAgent(h, t, { role: roleId });
    await createAgent(h, t, { role: roleId });
    await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId: gone.agentId });
    const res = await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid, search_params: { name: 'supervisor' } });
    expect(res.body).toEqual({
      status: 'success',
      code: 200,
      currentPage: 1,
      totalPages: 1,
      totalRecords: 1,
      response: [
        {
          _id: String(roleId),
          name: 'Supervisor',
          can_see: 0,
          create_date: Math.floor(h.clock.now() / 1000),
          create_by: t.userId,
          create_by_type: 'client',
          status: 1,
          user_id: String(t.accountId),
          unique_id: roleId,
          agCount: 2,
          permissions: ['agent.view', 'agent.live'],
        },
      ],
    });
  });

  it('refuses unknown permissions and unknown, deleted or foreign roles (1503)', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const foreign = await createRole(h, other);
    const bad = await h.post('/api/v2/role/create', { ssid: t.ssid, name: 'x', permissions: ['agent.view', 'agent.fly'] });
    expect(bad.body.code).toBe(1503);
    expect(bad.body.message).toContain('agent.fly');
    expect((await h.post('/api/v2/role/create', { ssid: t.ssid, name: 'x' })).body.code).toBe(1000);
    expect((await h.post('/api/v2/role/create', { ssid: t.ssid, name: 'x', permissions: 'agent.view' })).body.code).toBe(1000);
    expect((await h.post('/api/v2/role/create', { ssid: t.ssid, name: 'x', permissions: [], status: 3 })).body.code).toBe(1508);
    const mine = await createRole(h, t);
    expect((await h.post('/api/v2/role/update', { ssid: t.ssid, roleId: mine, permissions: ['nope'] })).body.code).toBe(1503);
    for (const roleId of [foreign, 987654, 'abc']) {
      expect((await h.post('/api/v2/role/update', { ssid: t.ssid, roleId, name: 'Hijack' })).body.code, String(roleId)).toBe(1503);
      expect((await h.post('/api/v2/role/delete', { ssid: t.ssid, roleId })).body.code, String(roleId)).toBe(1503);
    }
    const theirs = await h.post<RoleList>('/api/v2/role/list', { ssid: other.ssid });
    expect(theirs.body.response.map((r) => [r.unique_id, r.name])).toEqual([[foreign, expect.not.stringMatching('Hijack')]]);
    // A deleted role keeps its row but is gone for every write.
    expect((await h.post('/api/v2/role/delete', { ssid: t.ssid, roleId: mine })).body.status).toBe('success');
    expect((await h.post('/api/v2/role/delete', { ssid: t.ssid, roleId: mine })).body.code).toBe(1503);
    expect((await h.post('/api/v2/role/update', { ssid: t.ssid, roleId: mine, status: 1 })).body.code).toBe(1503);
    const agent = await h.post('/api/v2/Agent/create', {
      ssid: t.ssid,
      name: 'A',
      email: 'deleted-role@example.com',
      password: 'password1',
      phone: '9876543210',
      call_pass: '12345678',
      dest_type: 'MOBILE',
      dest_value: '9876543210',
      role: mine,
    });
    expect(agent.body.code).toBe(1503);
    const foreignRole = await h.post('/api/v2/Agent/create', {
      ssid: t.ssid,
      name: 'A',
      email: 'foreign-role@example.com',
      password: 'password1',
      phone: '9876543210',
      call_pass: '12345678',
      dest_type: 'MOBILE',
      dest_value: '9876543210',
      role: foreign,
    });
    expect(foreignRole.body.code).toBe(1503);
  });

  it('merges updates and filters by status: active, inactive, deleted', async () => {
    const h = use();
    const t = await createTenant(h);
    const a = await createRole(h, t, { name: 'Alpha', permissions: ['agent.view'] });
    const b = await createRole(h, t, { name: 'Beta' });
    const c = await createRole(h, t, { name: 'Gamma' });
    expect((await h.post('/api/v2/role/update', { ssid: t.ssid, roleId: String(b), status: 0 })).body.status).toBe('success');
    await h.post('/api/v2/role/delete', { ssid: t.ssid, roleId: c });
    await h.post('/api/v2/role/update', { ssid: t.ssid, roleId: a, name: 'Alpha 2', can_see: 0 });
    const ids = async (status?: string) =>
      (await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid, ...(status ? { status } : {}) })).body.response.map((r) => r.unique_id);
    expect(await ids()).toEqual([a, b]);
    expect(await ids('active')).toEqual([a]);
    expect(await ids('inactive')).toEqual([b]);
    expect(await ids('deleted')).toEqual([c]);
    const rec = (await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid, status: 'active' })).body.response[0]!;
    expect(rec).toMatchObject({ name: 'Alpha 2', can_see: 0, permissions: ['agent.view'], status: 1 });
    expect((await h.post('/api/v2/role/list', { ssid: t.ssid, status: 'gone' })).body.code).toBe(1508);
  });

  it('pages with defaults page 1 and limit 10, at most 100 per page', async () => {
    const h = use();
    const t = await createTenant(h);
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push(await createRole(h, t, { name: `R${i}`, permissions: [] }));
    const first = await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid });
    expect(first.body).toMatchObject({ currentPage: 1, totalPages: 2, totalRecords: 12 });
    expect(first.body.response.map((r) => r.unique_id)).toEqual(ids.slice(0, 10));
    const second = await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid, page: 2 });
    expect(second.body.response.map((r) => r.unique_id)).toEqual(ids.slice(10));
    const small = await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid, page: '3', limit: '5' });
    expect(small.body).toMatchObject({ currentPage: 3, totalPages: 3, totalRecords: 12 });
    expect(small.body.response.map((r) => r.unique_id)).toEqual(ids.slice(10));
    const beyond = await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid, page: 9 });
    expect(beyond.body).toMatchObject({ currentPage: 9, totalPages: 2, totalRecords: 12, response: [] });
    const max = await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid, limit: 100 });
    expect(max.body.response).toHaveLength(12);
    for (const bad of [{ limit: 101 }, { limit: 0 }, { page: 0 }, { page: -1 }, { limit: 'ten' }, { page: 1.5 }]) {
      expect((await h.post('/api/v2/role/list', { ssid: t.ssid, ...bad })).body.code, JSON.stringify(bad)).toBe(1000);
    }
  });

  it('filters by name, creation time and agent; bad filters are 1502', async () => {
    const h = use();
    const t = await createTenant(h);
    const t0 = Math.floor(h.clock.now() / 1000);
    const early = await createRole(h, t, { name: 'Night shift 50%' });
    h.clock.advance(3600_000);
    const late = await createRole(h, t, { name: 'Day Shift' });
    await createRole(h, t, { name: 'Other' });
    const agent = await createAgent(h, t, { role: late });
    const list = async (body: object) => (await h.post<RoleList>('/api/v2/role/list', { ssid: t.ssid, ...body })).body.response.map((r) => r.unique_id);
    expect(await list({ search_params: { name: 'SHIFT' } })).toEqual([early, late]);
    expect(await list({ search_params: { name: '50%' } })).toEqual([early]);
    expect(await list({ search_params: { name: '_' } })).toEqual([]);
    expect(await list({ search_params: { from: t0, to: t0 + 60 } })).toEqual([early]);
    expect(await list({ search_params: { from: t0 + 60, name: 'shift' } })).toEqual([late]);
    expect(await list({ agentid: String(agent.agentId) })).toEqual([late]);
    expect(await list({ agentid: null })).toHaveLength(3);
    expect(await list({ agentid: '' })).toHaveLength(3);
    expect(await list({ agentid: 99999999 })).toEqual([]);
    for (const sp of [{ colour: 'red' }, { from: 'yesterday' }, { from: t0 + 10, to: t0 }, 'name']) {
      expect((await h.post('/api/v2/role/list', { ssid: t.ssid, search_params: sp })).body.code, JSON.stringify(sp)).toBe(1502);
    }
    // Unix times are seconds: a millisecond from/to (over 10^11) is refused saying so.
    expect((await h.post('/api/v2/role/list', { ssid: t.ssid, search_params: { from: t0 * 1000 } })).body).toEqual({
      status: 'error',
      code: 1502,
      message: `Invalid filter value: search_params.from ${t0 * 1000} can only be milliseconds: Unix seconds are expected`,
    });
    expect((await h.post('/api/v2/role/list', { ssid: t.ssid, search_params: { from: t0, to: (t0 + 60) * 1000 } })).body.code).toBe(1502);
    expect(await list({ search_params: { from: t0, to: 100_000_000_000 } })).toHaveLength(3);
  });
});
