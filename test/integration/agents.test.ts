import { expect, it } from 'vitest';
import { createAgent, createDid, createGroup, createRole } from '../helpers/admin.js';
import { agentRecord } from '../helpers/agent-list.js';
import { createTenant, login, unique } from '../helpers/factories.js';
import { forEachDatabase, OPERATOR, type Harness } from '../helpers/harness.js';

/** A client account whose username is an e-mail address (agents may not take it). */
async function emailAccount(h: Harness): Promise<string> {
  const op = await login(h, OPERATOR.username, OPERATOR.password);
  const username = `${unique('client-')}@example.com`;
  const res = await h.post('/api/v2/account/create', { ssid: op.ssid, username, password: 'password123' });
  expect(res.body.status).toBe('success');
  return username;
}

const valid = () => ({
  name: 'Asha Rao',
  email: `${unique('a')}@example.com`,
  password: 'password1',
  phone: '+91 98765-43210',
  call_pass: '12345678',
  dest_type: 'MOBILE',
  dest_value: '98765 43210',
});

forEachDatabase('agents: create and update', (use) => {
  it('creates an agent and lists its full record', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t, { groupId: 55, name: 'Sales' });
    const did = await createDid(h, t, '918045671234');
    const role = await createRole(h, t, { name: 'Agents' });
    const res = await h.post<{ data: { agentId: number } }>('/api/v2/Agent/create', {
      ssid: t.ssid,
      ...valid(),
      email: 'Asha.Rao@Example.com',
      role: String(role),
      address: '12 MG Road',
      group: { [g]: { receive_call: 'N' } },
      working: [{ wDays: ['MON', 'TUE'], from: 540, to: 1080 }],
      allowDid: `+91 80 4567 1234`,
      favorite: 'queue 3',
    });
    expect(res.body).toMatchObject({ status: 'success', code: 200 });
    const id = res.body.data.agentId;
    expect(await agentRecord(h, t, id)).toEqual({
      name: 'Asha Rao',
      favorite: 'queue 3',
      email: 'asha.rao@example.com',
      phone: '919876543210',
      address: '12 MG Road',
      dest_type: 'MOBILE',
      dest_value: '9876543210',
      call_pass: '12345678',
      password: '',
      role: String(role),
      roleName: 'Agents',
      parent: ',START,',
      create_date: Math.floor(h.clock.now() / 1000),
      create_by: t.userId,
      create_by_type: 'client',
      user_id: String(t.accountId),
      unique_id: id,
      allowDid: did,
      status: 1,
      isDeleted: 0,
      preDeleted: 0,
      cad: 0,
      group: [55],
      groupNames: [{ '55': 'Sales' }],
      groupMapping: { '55': { receive_call: 'N' } },
      working: [{ wDays: ['MON', 'TUE'], from: 540, to: 1080, agentId: id }],
    });
    // The agent logs in with its e-mail (any case) and password.
    const s = await login(h, 'ASHA.RAO@example.com', 'password1');
    expect(s.userId).toBe(`agent-${id}`);
  });

  it('answers each field rule with its code', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const role = await createRole(h, t);
    const foreignRole = await createRole(h, other);
    const foreignAgent = await createAgent(h, other);
    const foreignGroup = await createGroup(h, other, { groupId: 77 });
    const foreignDid = await createDid(h, other);
    const taken = await createAgent(h, other, { email: 'taken@example.com' });
    const clientLogin = await emailAccount(h);
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ name: 'R2-D2 <script>' }, 1515],
      [{ name: '   ' }, 1515],
      [{ name: '1234' }, 1515],
      [{ name: 42 }, 1515],
      [{ phone: '12345' }, 1514],
      [{ phone: 'call me' }, 1514],
      [{ phone: { n: 1 } }, 1514],
      [{ call_pass: '1234567' }, 1519],
      [{ call_pass: '123456789' }, 1519],
      [{ call_pass: 'abcdefgh' }, 1519],
      [{ call_pass: 1234567.5 }, 1519],
      [{ call_pass: 1234567 }, 1519],
      [{ dest_type: 'PSTN' }, 1513],
      [{ dest_type: 'mobile' }, 1513],
      [{ dest_value: 'not-a-number' }, 1510],
      [{ dest_type: 'SIP', dest_value: 'sip:bad user@host' }, 1510],
      [{ working: [{ wDays: ['tue'], from: 0, to: 60 }] }, 1511],
      [{ working: [{ wDays: ['TUESDAY'], from: 0, to: 60 }] }, 1511],
      [{ working: [{ wDays: [], from: 0, to: 60 }] }, 1511],
      [{ working: [{ wDays: ['MON', 'MON'], from: 0, to: 60 }] }, 1511],
      [{ working: [{ wDays: ['MON'], from: 600, to: 600 }] }, 1511],
      [{ working: [{ wDays: ['MON'], from: 0, to: 1441 }] }, 1511],
      [{ working: [{ wDays: ['MON'], from: 10.5, to: 60 }] }, 1511],
      [{ working: [{ wDays: ['MON'], from: 0 }] }, 1511],
      [{ working: 'MON 9-5' }, 1511],
      [{ email: 'taken@example.com' }, 1512],
      [{ email: 'TAKEN@example.com' }, 1512],
      [{ email: clientLogin }, 1512],
      [{ email: clientLogin.toUpperCase() }, 1512],
      [{ email: 'not-an-email' }, 1000],
      [{ allowDid: [foreignDid] }, 1516],
      [{ allowDid: 'abc' }, 1516],
      [{ allowDid: { did: 1 } }, 1516],
      [{ favorite: { a: 1 } }, 1528],
      [{ favorite: 'x'.repeat(1001) }, 1528],
      [{ favorite: 'line\nbreak' }, 1528],
      [{ role: 999999 }, 1503],
      [{ role: foreignRole }, 1503],
      [{ role: 'admin' }, 1503],
      [{ parent: foreignAgent.agentId }, 1504],
      [{ parent: 999999 }, 1504],
      [{ parent: 'boss' }, 1504],
      [{ group: { [foreignGroup]: { receive_call: 'Y' } } }, 1505],
      [{ group: { abc: { receive_call: 'Y' } } }, 1505],
      [{ group: { '55': { receive_call: 'maybe' } } }, 1505],
      [{ group: { '55': 'Y' } }, 1505],
      [{ group: [55] }, 1505],
      [{ status: 2 }, 1508],
      [{ password: 'short' }, 1000],
      [{ role: undefined }, 1000],
      [{ email: undefined }, 1000],
      [{ call_pass: undefined }, 1000],
    ];
    await createGroup(h, t, { groupId: 55 });
    for (const [patch, code] of cases) {
      const res = await h.post('/api/v2/Agent/create', { ssid: t.ssid, ...valid(), role, ...patch });
      expect(res.body.code, JSON.stringify(patch)).toBe(code);
    }
    expect(taken.agentId).toBeGreaterThan(0);
  });

  it('accepts the other valid forms of each field', async () => {
    const h = use();
    const t = await createTenant(h);
    const role = await createRole(h, t);
    const d1 = await createDid(h, t);
    const d2 = await createDid(h, t);
    const res = await h.post<{ data: { agentId: number } }>('/api/v2/Agent/create', {
      ssid: t.ssid,
      ...valid(),
      name: "Dr. Jean-Luc O'Neil 2",
      call_pass: 87654321,
      dest_type: 'SIP',
      dest_value: 'sip:jl@pbx.example.com:5060',
      role,
      allowDid: [Number(d1), d2, d1],
      status: 0,
      parent: '',
      working: [],
    });
    expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    const rec = (await agentRecord(h, t, res.body.data.agentId))!;
    expect(rec).toMatchObject({ call_pass: '87654321', dest_value: 'sip:jl@pbx.example.com:5060', allowDid: `${d1},${d2}`, status: 0, parent: ',START,' });
    const ext = await h.post('/api/v2/Agent/create', { ssid: t.ssid, ...valid(), dest_type: 'SIP', dest_value: '2001', role });
    expect(ext.body.status).toBe('success');
  });

  it('working time is whole minutes after midnight (0-1440): hours as HHMM or seconds are refused with 1511', async () => {
    const h = use();
    const t = await createTenant(h);
    const rules = [
      { wDays: ['MON'], from: 0, to: 1440 },
      { wDays: ['TUE', 'WED'], from: 540, to: 1020 },
      { wDays: ['SAT'], from: 1439, to: 1440 },
    ];
    const a = await createAgent(h, t, { working: rules });
    expect((await agentRecord(h, t, a.agentId))!.working).toEqual(rules.map((r) => ({ ...r, agentId: a.agentId })));
    for (const [from, to] of [
      [900, 1700], // 09:00-17:00 written as HHMM
      [32_400, 61_200], // 09:00-17:00 in seconds
      [-1, 60],
      [0, 1441],
    ] as const) {
      const res = await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, working: [{ wDays: ['MON'], from, to }] });
      expect(res.body, `${from}-${to}`).toEqual({
        status: 'error',
        code: 1511,
        message: 'Working time format invalid: working[0]: from and to are whole minutes after midnight, 0 <= from < to <= 1440',
      });
    }
    expect((await agentRecord(h, t, a.agentId))!.working).toHaveLength(3);
  });

  it('merges updates: fields not sent keep their values', async () => {
    const h = use();
    const t = await createTenant(h);
    const g1 = await createGroup(h, t);
    const g2 = await createGroup(h, t);
    const a = await createAgent(h, t, { group: g1, favorite: 'fav', working: [{ wDays: ['SUN'], from: 0, to: 1440 }] });
    const before = (await agentRecord(h, t, a.agentId))!;
    const upd = await h.post('/api/v2/Agent/update', {
      ssid: t.ssid,
      agentId: String(a.agentId),
      name: 'Renamed Person',
      group: { [g2]: { receive_call: 'N' } },
    });
    expect(upd.body).toMatchObject({ status: 'success', code: 200 });
    const after = (await agentRecord(h, t, a.agentId))!;
    expect(after).toEqual({
      ...before,
      name: 'Renamed Person',
      group: [g1, g2],
      groupNames: [...before.groupNames, { [String(g2)]: expect.any(String) }],
      groupMapping: { [g1]: { receive_call: 'Y' }, [g2]: { receive_call: 'N' } },
    });
    // dest_type change must come with a destination valid for the new type.
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, dest_type: 'SIP', dest_value: '98765 43210 x' })).body.code).toBe(1510);
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, dest_type: 'SIP', dest_value: 'agent7@pbx.local' })).body.status).toBe(
      'success',
    );
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, call_pass: '1' })).body.code).toBe(1519);
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, working: [{ wDays: ['XYZ'], from: 0, to: 1 }] })).body.code).toBe(1511);
    expect((await agentRecord(h, t, a.agentId))!).toMatchObject({
      dest_type: 'SIP',
      dest_value: 'agent7@pbx.local',
      call_pass: '12345678',
      working: before.working,
    });
  });

  it('answers each field rule of an update with its code, and changes nothing', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const [foreignRole, foreignGroup, foreignDid] = [await createRole(h, other), await createGroup(h, other, { groupId: 78 }), await createDid(h, other)];
    const foreignAgent = (await createAgent(h, other)).agentId;
    const gone = (await createAgent(h, t)).agentId;
    await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId: gone });
    const taken = await createAgent(h, t);
    const a = await createAgent(h, t);
    const before = await agentRecord(h, t, a.agentId);
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ role: foreignRole }, 1503],
      [{ role: 'admin' }, 1503],
      [{ parent: foreignAgent }, 1504],
      [{ parent: gone }, 1504],
      [{ group: { [foreignGroup]: { receive_call: 'Y' } } }, 1505],
      [{ group: { '1': { receive_call: 'X' } } }, 1505],
      [{ status: 3 }, 1508],
      [{ dest_value: 'sip:x' }, 1510],
      [{ working: [{ wDays: ['MON'], from: 60, to: 30 }] }, 1511],
      [{ email: taken.email }, 1512],
      [{ dest_type: 'FAX' }, 1513],
      [{ phone: '123' }, 1514],
      [{ name: '...' }, 1515],
      [{ allowDid: [foreignDid] }, 1516],
      [{ allowDid: 'x1' }, 1516],
      [{ call_pass: 'abcdefgh' }, 1519],
      [{ favorite: 'a\tb' }, 1528],
      [{ email: 'nope' }, 1000],
      [{ password: 'short' }, 1000],
      [{ name: 'Valid Name', role: foreignRole }, 1503],
    ];
    for (const [patch, code] of cases) {
      const res = await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, ...patch });
      expect(res.body.code, JSON.stringify(patch)).toBe(code);
    }
    expect(await agentRecord(h, t, a.agentId)).toEqual(before);
    await login(h, a.email, a.password);
  });

  it('changes e-mail and password; e-mails stay unique (1512)', async () => {
    const h = use();
    const t = await createTenant(h);
    const a = await createAgent(h, t);
    const b = await createAgent(h, t);
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, email: b.email.toUpperCase() })).body.code).toBe(1512);
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, email: await emailAccount(h) })).body.code).toBe(1512);
    // Its own address again is no conflict.
    expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, email: a.email })).body.status).toBe('success');
    const upd = await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: a.agentId, email: 'new-address@example.com', password: 'new-password' });
    expect(upd.body.status).toBe('success');
    expect((await h.post('/api/v2/auth/login', { username: a.email, password: a.password })).body.code).toBe(1014);
    expect((await h.post('/api/v2/auth/login', { username: 'new-address@example.com', password: a.password })).body.code).toBe(1014);
    await login(h, 'new-address@example.com', 'new-password');
    // The old address is free again, for any tenant; a client username may not take an agent's e-mail.
    const other = await createTenant(h);
    await createAgent(h, other, { email: a.email });
    const op = await login(h, OPERATOR.username, OPERATOR.password);
    const clash = await h.post('/api/v2/account/create', { ssid: op.ssid, username: 'new-address@example.com', password: 'password123' });
    expect(clash.body.code).toBe(1512);
  });

  it('1509 for unknown, deleted and foreign agents on update and delete', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const foreign = await createAgent(h, other);
    const gone = await createAgent(h, t);
    expect((await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId: gone.agentId })).body.status).toBe('success');
    for (const agentId of [foreign.agentId, gone.agentId, 99999999, 'abc']) {
      expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId, name: 'Someone' })).body.code, String(agentId)).toBe(1509);
      expect((await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId })).body.code, String(agentId)).toBe(1509);
    }
    expect((await agentRecord(h, other, foreign.agentId))!.name).toBe('Test Agent');
    expect(await agentRecord(h, t, foreign.agentId)).toBeUndefined();
  });

  it('two creations racing for one e-mail: exactly one wins, the other gets 1512', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const role = await createRole(h, t);
    const role2 = await createRole(h, other);
    const email = `${unique('race-')}@example.com`;
    const answers = await Promise.all([
      h.post('/api/v2/Agent/create', { ssid: t.ssid, ...valid(), email, role }),
      h.post('/api/v2/Agent/create', { ssid: other.ssid, ...valid(), email: email.toUpperCase(), role: role2 }),
    ]);
    expect(answers.map((a) => a.body.code).sort((x, y) => x - y)).toEqual([200, 1512]);
  });
});
