import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';

let seq = 0;
/** A fresh 12-digit number per call, so tests sharing a tenant never collide. */
const num = () => `9188${String(Date.now() % 1_000_000).padStart(6, '0')}${String(seq++ % 100).padStart(2, '0')}`;

forEachDatabase('directory: contacts', (use) => {
  const post = (h: Harness, op: string, body: Record<string, unknown>) => h.post(`/api/v2/Directory/${op}`, body);

  it('creates a contact and reads it back with getInfo (Cu, and Ot with field all)', async () => {
    const h = use();
    const t = await createTenant(h);
    const res = await post(h, 'create', {
      ssid: t.ssid,
      contact: '+91 98765-43210',
      contactinfo: {
        name: 'Asha K. Rao',
        email: 'asha@example.com',
        dob: '29-02-2000',
        address: '1 MG Road',
        company: 'Acme',
        designation: 'CTO',
        custom_region: 'South',
      },
      other: { totalcalls: 4, source: 2, vip: true, blacklist: false, lastcalltime: '01-11-2026', obd: 'done' },
    });
    expect(res.body).toEqual({ status: 'success', code: 200, message: 'Contact created', data: { contact: '919876543210' } });

    const info = await post(h, 'getInfo', { ssid: t.ssid, cn: 919876543210 });
    expect(info.body).toEqual({
      status: 'success',
      code: 200,
      Cu: {
        mobile: 919876543210,
        Name: 'Asha K. Rao',
        Email: 'asha@example.com',
        Address: '1 MG Road',
        Company: 'Acme',
        Designation: 'CTO',
        DOB: '29-02-2000',
        custom_region: 'South',
      },
    });
    const all = await post(h, 'getInfo', { ssid: t.ssid, cn: '919876543210', field: 'all' });
    const now = Math.floor(h.clock.now() / 1000);
    expect(all.body.Ot).toEqual({ uid: String(t.accountId), create_time: now, update_time: now, sc: 2, tC: 4, lcT: '01-11-2026', vip: true, blacklist: false });
  });

  it('omits absent values in Cu and Ot', async () => {
    const h = use();
    const t = await createTenant(h);
    const n = num();
    await post(h, 'create', { ssid: t.ssid, contact: n, contactinfo: { name: 'Bo' } });
    const all = await post(h, 'getInfo', { ssid: t.ssid, cn: n, field: 'all' });
    expect(all.body.Cu).toEqual({ mobile: Number(n), Name: 'Bo' });
    expect(Object.keys(all.body.Ot as object).sort()).toEqual(['create_time', 'uid', 'update_time']);
  });

  it('1504 when the contact exists; 1012 for update, getInfo and getFields of a missing one', async () => {
    const h = use();
    const t = await createTenant(h);
    const n = num();
    expect((await post(h, 'create', { ssid: t.ssid, contact: n, contactinfo: { name: 'A' } })).body.status).toBe('success');
    expect((await post(h, 'create', { ssid: t.ssid, contact: `+${n}`, other: { vip: true } })).body).toMatchObject({ status: 'error', code: 1504 });
    const missing = num();
    expect((await post(h, 'update', { ssid: t.ssid, contact: missing, contactinfo: { name: 'B' } })).body.code).toBe(1012);
    expect((await post(h, 'getInfo', { ssid: t.ssid, cn: missing })).body.code).toBe(1012);
    expect((await post(h, 'getFields', { ssid: t.ssid, contact: missing, project: 'name' })).body.code).toBe(1012);
  });

  it('contact numbers: missing 1000, malformed 1005 (create, getInfo, getFields, search)', async () => {
    const h = use();
    const t = await createTenant(h);
    expect((await post(h, 'create', { ssid: t.ssid, contactinfo: { name: 'A' } })).body.code).toBe(1000);
    expect((await post(h, 'create', { ssid: t.ssid, contact: '12345', contactinfo: { name: 'A' } })).body.code).toBe(1005);
    expect((await post(h, 'create', { ssid: t.ssid, contact: '1234567890123456', contactinfo: { name: 'A' } })).body.code).toBe(1005);
    expect((await post(h, 'create', { ssid: t.ssid, contact: { n: 1 }, contactinfo: { name: 'A' } })).body.code).toBe(1005);
    expect((await post(h, 'create', { ssid: t.ssid, contact: 12.5, contactinfo: { name: 'A' } })).body.code).toBe(1005);
    expect((await post(h, 'getInfo', { ssid: t.ssid })).body.code).toBe(1000);
    expect((await post(h, 'getInfo', { ssid: t.ssid, cn: 'abc' })).body.code).toBe(1005);
    expect((await post(h, 'getFields', { ssid: t.ssid, contact: 'x', project: 'name' })).body.code).toBe(1005);
    expect((await post(h, 'search', { ssid: t.ssid, contact: 'abc', project: 'name' })).body.code).toBe(1005);
    expect((await post(h, 'search', { ssid: t.ssid, project: 'name' })).body.code).toBe(1000);
  });

  it('needs at least one of contactinfo or other, each an object', async () => {
    const h = use();
    const t = await createTenant(h);
    expect((await post(h, 'create', { ssid: t.ssid, contact: num() })).body.code).toBe(1000);
    expect((await post(h, 'create', { ssid: t.ssid, contact: num(), contactinfo: 'name' })).body.code).toBe(1000);
    expect((await post(h, 'create', { ssid: t.ssid, contact: num(), other: [1] })).body.code).toBe(1000);
    const n = num();
    await post(h, 'create', { ssid: t.ssid, contact: n, other: { vip: false } });
    expect((await post(h, 'update', { ssid: t.ssid, contact: n })).body.code).toBe(1000);
  });

  it('enforces every field rule with 1000 naming the field', async () => {
    const h = use();
    const t = await createTenant(h);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ contactinfo: { name: 'R2-D2' } }, 'contactinfo.name'],
      [{ contactinfo: { name: 42 } }, 'contactinfo.name'],
      [{ contactinfo: { email: 'not-an-email' } }, 'contactinfo.email'],
      [{ contactinfo: { email: 'a@b' } }, 'contactinfo.email'],
      [{ contactinfo: { dob: '1990-05-01' } }, 'contactinfo.dob'],
      [{ contactinfo: { dob: '31-02-2001' } }, 'contactinfo.dob'],
      [{ contactinfo: { dob: '29-02-2001' } }, 'contactinfo.dob'],
      [{ contactinfo: { address: ['x'] } }, 'contactinfo.address'],
      [{ contactinfo: { company: 5 } }, 'contactinfo.company'],
      [{ contactinfo: { designation: {} } }, 'contactinfo.designation'],
      [{ other: { lastcalltime: '32-01-2020' } }, 'other.lastcalltime'],
      [{ other: { updatetime: 'yesterday' } }, 'other.updatetime'],
      [{ other: { create_date: '00-01-2020' } }, 'other.create_date'],
      [{ other: { totalcalls: -1 } }, 'other.totalcalls'],
      [{ other: { totalcalls: 1.5 } }, 'other.totalcalls'],
      [{ other: { source: 'web' } }, 'other.source'],
      [{ other: { vip: 'yes' } }, 'other.vip'],
      [{ other: { blacklist: 2 } }, 'other.blacklist'],
      [{ other: { obd: 7 } }, 'other.obd'],
    ];
    for (const [body, field] of cases) {
      const res = await post(h, 'create', { ssid: t.ssid, contact: num(), ...body });
      expect(res.body.code, JSON.stringify(body)).toBe(1000);
      expect(res.body.message, JSON.stringify(body)).toContain(field);
    }
    const good = await post(h, 'create', {
      ssid: t.ssid,
      contact: num(),
      contactinfo: { name: 'José Ñandú. Jr', email: 'j.n+tag@mail.example.co.in', dob: '29-02-2004' },
      other: { totalcalls: '12', source: 0, vip: 1, blacklist: 0, updatetime: '01-01-2026', pc: 'x', ibd: 'y', ctc: 'z' },
    });
    expect(good.body.status, JSON.stringify(good.body)).toBe('success');
  });

  it('update merges: only supplied fields change; empty string or null clears a field; create_date is create-only', async () => {
    const h = use();
    const t = await createTenant(h);
    const n = num();
    await post(h, 'create', {
      ssid: t.ssid,
      contact: n,
      contactinfo: { name: 'Old Name', email: 'old@example.com', company: 'Acme' },
      other: { vip: true, create_date: '05-03-2020' },
    });
    h.clock.advance(60_000);
    const upd = await post(h, 'update', { ssid: t.ssid, contact: n, contactinfo: { name: 'New Name', company: '' }, other: { totalcalls: 3 } });
    expect(upd.body).toEqual({ status: 'success', code: 200, message: 'Contact updated', data: { contact: n } });
    const info = await post(h, 'getInfo', { ssid: t.ssid, cn: n, field: 'all' });
    expect(info.body.Cu).toEqual({ mobile: Number(n), Name: 'New Name', Email: 'old@example.com' });
    const ot = info.body.Ot as Record<string, unknown>;
    expect(ot).toMatchObject({ vip: true, tC: 3, create_time: Date.UTC(2020, 2, 5) / 1000, update_time: Math.floor(h.clock.now() / 1000) });
    expect((await post(h, 'update', { ssid: t.ssid, contact: n, other: { create_date: '01-01-2021' } })).body.code).toBe(1000);
    expect((await post(h, 'update', { ssid: t.ssid, contact: n, contactinfo: { email: 'bad' } })).body.code).toBe(1000);
    const after = await post(h, 'getInfo', { ssid: t.ssid, cn: n });
    expect((after.body.Cu as Record<string, unknown>).Email).toBe('old@example.com');
  });

  it('concurrent updates of different fields all land (no lost update)', async () => {
    const h = use();
    const t = await createTenant(h);
    const n = num();
    await post(h, 'create', { ssid: t.ssid, contact: n, contactinfo: { name: 'Start' } });
    const patches = [
      { contactinfo: { email: 'x@example.com' } },
      { contactinfo: { address: 'Street 1' } },
      { contactinfo: { company: 'Acme' } },
      { contactinfo: { designation: 'Boss' } },
      { contactinfo: { dob: '01-01-1990' } },
      { contactinfo: { custom_a: 'A' } },
      { contactinfo: { custom_b: 'B' } },
      { other: { vip: true } },
    ];
    const answers = await Promise.all(patches.map((p) => post(h, 'update', { ssid: t.ssid, contact: n, ...p })));
    expect(answers.map((a) => a.body.status)).toEqual(Array(patches.length).fill('success'));
    const info = await post(h, 'getInfo', { ssid: t.ssid, cn: n, field: 'all' });
    expect(info.body.Cu).toEqual({
      mobile: Number(n),
      Name: 'Start',
      Email: 'x@example.com',
      Address: 'Street 1',
      Company: 'Acme',
      Designation: 'Boss',
      DOB: '01-01-1990',
      custom_a: 'A',
      custom_b: 'B',
    });
    expect((info.body.Ot as Record<string, unknown>).vip).toBe(true);
  });

  it('concurrent creates of one number: exactly one succeeds, the others get 1504', async () => {
    const h = use();
    const t = await createTenant(h);
    const n = num();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post(h, 'create', { ssid: t.ssid, contact: n, contactinfo: { name: `N${'x'.repeat(i)}` } })),
    );
    expect(answers.filter((a) => a.body.status === 'success')).toHaveLength(1);
    expect(answers.filter((a) => a.body.code === 1504)).toHaveLength(5);
  });

  it('custom fields: validated by their configured type, required on create, unconfigured custom_* stored as text', async () => {
    const h = use();
    const t = await createTenant(h);
    await h.post('/api/v2/account/updateSettings', {
      ssid: t.ssid,
      customFields: [
        { key: 'custom_plan', type: 'text', required: true },
        { key: 'custom_score', type: 'number' },
        { key: 'custom_renewal', type: 'date' },
        { key: 'custom_billing', type: 'email' },
        { key: 'custom_alt', type: 'phone' },
      ],
    });
    const base = { custom_plan: 'gold' };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{}, 'custom_plan'],
      [{ custom_plan: '' }, 'custom_plan'],
      [{ ...base, custom_score: 'high' }, 'custom_score'],
      [{ ...base, custom_renewal: '2026-01-01' }, 'custom_renewal'],
      [{ ...base, custom_billing: 'nope' }, 'custom_billing'],
      [{ ...base, custom_alt: '12' }, 'custom_alt'],
      [{ ...base, custom_free: { x: 1 } }, 'custom_free'],
    ];
    for (const [info, field] of bad) {
      const res = await post(h, 'create', { ssid: t.ssid, contact: num(), contactinfo: info });
      expect(res.body.code, JSON.stringify(info)).toBe(1000);
      expect(res.body.message).toContain(field);
    }
    const n = num();
    const ok = await post(h, 'create', {
      ssid: t.ssid,
      contact: n,
      contactinfo: {
        custom_plan: 'gold',
        custom_score: '7.5',
        custom_renewal: '31-12-2026',
        custom_billing: 'b@example.com',
        custom_alt: '+1 (555) 010-9999',
        custom_free: 12,
      },
    });
    expect(ok.body.status, JSON.stringify(ok.body)).toBe('success');
    const info = await post(h, 'getInfo', { ssid: t.ssid, cn: n });
    expect(info.body.Cu).toEqual({
      mobile: Number(n),
      custom_plan: 'gold',
      custom_score: 7.5,
      custom_renewal: '31-12-2026',
      custom_billing: 'b@example.com',
      custom_alt: '15550109999',
      custom_free: '12',
    });
    // A required custom field cannot be cleared by an update; others can.
    expect((await post(h, 'update', { ssid: t.ssid, contact: n, contactinfo: { custom_plan: null } })).body.code).toBe(1000);
    await post(h, 'update', { ssid: t.ssid, contact: n, contactinfo: { custom_free: null, custom_score: 8 } });
    const fields = await post(h, 'getFields', { ssid: t.ssid, contact: n, project: 'custom_free,custom_score,custom_plan' });
    expect(fields.body.data).toEqual({ custom_free: null, custom_score: 8, custom_plan: 'gold' });
  });

  it('getFields maps each requested name to its value, null where unset or unknown; "all" lists every field', async () => {
    const h = use();
    const t = await createTenant(h);
    const n = num();
    await post(h, 'create', {
      ssid: t.ssid,
      contact: n,
      contactinfo: { name: 'Ravi', custom_x: 'y' },
      other: { vip: false, create_date: '05-03-2020', source: 3 },
    });
    const some = await post(h, 'getFields', { ssid: t.ssid, contact: n, project: 'name, email,vip,create_date,source,nonsense' });
    expect(some.body).toEqual({
      status: 'success',
      code: 200,
      data: { name: 'Ravi', email: null, vip: false, create_date: '05-03-2020', source: 3, nonsense: null },
    });
    const arr = await post(h, 'getFields', { ssid: t.ssid, contact: n, project: ['name'] });
    expect(arr.body.data).toEqual({ name: 'Ravi' });
    const all = await post(h, 'getFields', { ssid: t.ssid, contact: n, project: 'all' });
    const data = all.body.data as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(
      expect.arrayContaining([
        'name',
        'email',
        'dob',
        'address',
        'company',
        'designation',
        'create_date',
        'updatetime',
        'lastcalltime',
        'totalcalls',
        'source',
        'vip',
        'blacklist',
        'obd',
        'ibd',
        'pc',
        'ctc',
        'custom_x',
      ]),
    );
    expect(data.custom_x).toBe('y');
    expect((await post(h, 'getFields', { ssid: t.ssid, contact: n, project: ' , ' })).body.code).toBe(1000);
    expect((await post(h, 'getFields', { ssid: t.ssid, contact: n })).body.code).toBe(1000);
  });

  it('search: digit prefix, projection, limit (default 20, max 500), 1012 "no data found"', async () => {
    const h = use();
    const t = await createTenant(h);
    const prefix = `7${String(Date.now() % 100000).padStart(5, '0')}`;
    for (let i = 0; i < 25; i++) {
      await post(h, 'create', {
        ssid: t.ssid,
        contact: `${prefix}${String(i).padStart(4, '0')}`,
        contactinfo: { name: `Person ${String.fromCharCode(65 + i)}` },
      });
    }
    await post(h, 'create', { ssid: t.ssid, contact: `8${prefix}000`, contactinfo: { name: 'Other' } });
    const res = await post(h, 'search', { ssid: t.ssid, contact: prefix, project: 'name,email' });
    const rows = res.body.data as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(20);
    expect(rows[0]).toEqual({ contact: `${prefix}0000`, name: 'Person A', email: null });
    expect(rows.every((r) => String(r.contact).startsWith(prefix))).toBe(true);
    const limited = await post(h, 'search', { ssid: t.ssid, contact: `${prefix}001`, project: 'name', limit: 3 });
    expect((limited.body.data as unknown[]).map((r) => (r as { contact: string }).contact)).toEqual([`${prefix}0010`, `${prefix}0011`, `${prefix}0012`]);
    const max = await post(h, 'search', { ssid: t.ssid, contact: prefix, project: 'all', limit: 500 });
    expect((max.body.data as unknown[]).length).toBe(25);
    expect((await post(h, 'search', { ssid: t.ssid, contact: prefix, project: 'name', limit: 501 })).body.code).toBe(1000);
    expect((await post(h, 'search', { ssid: t.ssid, contact: prefix, project: 'name', limit: 0 })).body.code).toBe(1000);
    const none = await post(h, 'search', { ssid: t.ssid, contact: '1234509', project: 'name' });
    expect(none.body).toEqual({ status: 'error', code: 1012, message: 'No data found' });
  });

  it("isolation: another tenant's contacts behave like non-existent ones", async () => {
    const h = use();
    const a = await createTenant(h);
    const b = await createTenant(h);
    const n = num();
    await post(h, 'create', { ssid: a.ssid, contact: n, contactinfo: { name: 'Mine' } });
    expect((await post(h, 'getInfo', { ssid: b.ssid, cn: n })).body.code).toBe(1012);
    expect((await post(h, 'update', { ssid: b.ssid, contact: n, contactinfo: { name: 'Theirs' } })).body.code).toBe(1012);
    expect((await post(h, 'search', { ssid: b.ssid, contact: n, project: 'name' })).body.code).toBe(1012);
    // b may hold its own entry for the same number.
    expect((await post(h, 'create', { ssid: b.ssid, contact: n, contactinfo: { name: 'Theirs' } })).body.status).toBe('success');
    expect(((await post(h, 'getInfo', { ssid: a.ssid, cn: n })).body.Cu as Record<string, unknown>).Name).toBe('Mine');
  });

  it('permissions: directory.view reads, directory.manage writes (1015 naming the permission)', async () => {
    const h = use();
    const t = await createTenant(h);
    const n = num();
    await post(h, 'create', { ssid: t.ssid, contact: n, contactinfo: { name: 'A' } });
    const viewer = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['directory.view'] }) });
    const s = await login(h, viewer.email, viewer.password);
    expect((await post(h, 'getInfo', { ssid: s.ssid, cn: n })).body.status).toBe('success');
    expect((await post(h, 'search', { ssid: s.ssid, contact: n, project: 'name' })).body.status).toBe('success');
    const denied = await post(h, 'update', { ssid: s.ssid, contact: n, contactinfo: { name: 'B' } });
    expect(denied.body).toMatchObject({ code: 1015 });
    expect(denied.body.message).toContain('directory.manage');
    const none = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.view'] }) });
    const s2 = await login(h, none.email, none.password);
    expect((await post(h, 'getInfo', { ssid: s2.ssid, cn: n })).body.message).toContain('directory.view');
  });
});
