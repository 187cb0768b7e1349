import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, login, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { lastAuditId, recordsSince } from './audit.fixtures.js';

interface CsvAnswer {
  status: string;
  code: number;
  message?: string;
  data: {
    rows: number;
    added: number;
    updated: number;
    rejectedCount: number;
    rejected: Array<{ index: number; line: number; code: number; message: string }>;
  };
}

async function upload(h: Harness, query: Record<string, string | number>, csv: string | Buffer, headers: Record<string, string> = {}) {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await h.app.inject({
    method: 'POST',
    url: `/api/v2/contactList/importCsv?${q.toString()}`,
    payload: csv,
    headers: { 'content-type': 'text/csv', ...headers },
  });
  return { http: res.statusCode, body: res.json() as CsvAnswer };
}

async function newList(h: Harness, t: Session): Promise<number> {
  return ((await h.post('/api/v2/contactList/create', { ssid: t.ssid, name: 'CSV' })).body.data as { clId: number }).clId;
}

async function contacts(h: Harness, t: Session, clId: number) {
  return (await h.post<{ data: Array<Record<string, unknown>> }>('/api/v2/contactList/contacts', { ssid: t.ssid, clId, limit: 1000 })).body.data;
}

forEachDatabase('contact list CSV import', (use) => {
  it('reads the header (number, name, timezone, every other column a field) and adds or updates each row', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    await h.post('/api/v2/AddContactApi/addContact', { ssid: t.ssid, clId, action: 0, record: { number: '919800001003', name: 'Before', fields: { old: 1 } } });
    // A BOM, CRLF, a quoted cell with a comma and a line break, headers in any case, an empty cell, a number written twice.
    const csv =
      '\ufeffNumber,Name,TimeZone,plan,region\r\n' +
      '+91 98000 01001,"Rao, Asha",Asia/Kolkata,gold,"North\r\nEast"\r\n' +
      '919800001002,Ravi,,silver,\r\n' +
      '919800001003,After,Europe/London,,West\r\n' +
      '919800001002,Ravi K,,bronze,South\r\n';
    const res = await upload(h, { ssid: t.ssid, clId }, csv);
    expect(res.http).toBe(200);
    expect(res.body).toEqual({ status: 'success', code: 200, data: { rows: 4, added: 2, updated: 2, rejectedCount: 0, rejected: [] } });
    const list = await contacts(h, t, clId);
    expect(list.map((c) => [c.number, c.name, c.timezone, c.fields])).toEqual([
      ['919800001003', 'After', 'Europe/London', { region: 'West' }],
      ['919800001001', 'Rao, Asha', 'Asia/Kolkata', { plan: 'gold', region: 'North\r\nEast' }],
      ['919800001002', 'Ravi K', '', { plan: 'bronze', region: 'South' }],
    ]);
  });

  it('rejects a bad row alone, with its index, line and code; the rows around it are written', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const csv = [
      'number,name,timezone',
      '919800002001,A,',
      '12345,B,', // 1005
      '919800002003,C,Mars/Olympus', // 1001
      '919800002004,D', // wrong cell count: the parser's 1000
      '',
      '919800002005,E,UTC',
    ].join('\n');
    const res = await upload(h, { ssid: t.ssid, clId }, csv);
    expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    expect(res.body.data).toMatchObject({ rows: 5, added: 2, updated: 0, rejectedCount: 3 });
    expect(res.body.data.rejected.map((r) => [r.index, r.line, r.code])).toEqual([
      [1, 3, 1005],
      [2, 4, 1001],
      [3, 5, 1000],
    ]);
    expect(res.body.data.rejected[2]!.message).toMatch(/Invalid Record Length/);
    expect((await contacts(h, t, clId)).map((c) => c.number)).toEqual(['919800002001', '919800002005']);
  });

  it('writes batches of 10,000 rows, each with its audit record; lists the first 100 rejections and counts them all', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const lines = ['number,segment'];
    for (let i = 0; i < 10_150; i++) lines.push(i % 100 === 7 ? `bad${i},x` : `${910000000000 + i},s${i % 3}`);
    const since = await lastAuditId(h, t);
    const res = await upload(h, { ssid: t.ssid, clId }, lines.join('\n'));
    expect(res.body.data).toMatchObject({ rows: 10_150, added: 10_048, updated: 0, rejectedCount: 102 });
    expect(res.body.data.rejected).toHaveLength(100);
    expect(res.body.data.rejected.map((r) => r.index)).toEqual(Array.from({ length: 100 }, (_, k) => k * 100 + 7));
    expect(res.body.data.rejected.every((r) => r.code === 1005 && r.line === r.index + 2)).toBe(true);
    const records = await recordsSince(h, t, since);
    expect(records.map((r) => [r.operation, r.target])).toEqual([
      ['contactList/importCsv', { type: 'contactList', id: String(clId) }],
      ['contactList/importCsv', { type: 'contactList', id: String(clId) }],
    ]);
    expect(records.map((r) => r.changes)).toEqual([
      { added: [null, 9_900], updated: [null, 0] },
      { added: [null, 148], updated: [null, 0] },
    ]);
    const listed = (await h.post<{ data: Array<{ clId: number; contacts: number }> }>('/api/v2/contactList/list', { ssid: t.ssid })).body.data;
    expect(listed[0]!.contacts).toBe(10_048);
    // The same file again: every good row is an update.
    const again = await upload(h, { ssid: t.ssid, clId }, lines.join('\n'));
    expect(again.body.data).toMatchObject({ rows: 10_150, added: 0, updated: 10_048, rejectedCount: 102 });
  });

  it('refuses a header without number, an unknown list and a file without a header (nothing written)', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const noNumber = await upload(h, { ssid: t.ssid, clId }, 'phone,name\n919800003001,A\n');
    expect(noNumber.http).toBe(400);
    expect(noNumber.body).toMatchObject({ status: 'error', code: 1000 });
    expect(noNumber.body.message).toContain('number');
    const twice = await upload(h, { ssid: t.ssid, clId }, 'number,Number\n919800003001,1\n');
    expect(twice.body.code).toBe(1000);
    expect((await upload(h, { ssid: t.ssid, clId }, '')).body.code).toBe(1000);
    expect((await upload(h, { ssid: t.ssid, clId: 999 }, 'number\n919800003001\n')).body).toMatchObject({ code: 1012 });
    expect((await upload(h, { ssid: t.ssid, clId: 'x' }, 'number\n919800003001\n')).body).toMatchObject({ code: 1012 });
    expect((await upload(h, { ssid: t.ssid }, 'number\n919800003001\n')).http).toBe(400);
    expect(await contacts(h, t, clId)).toEqual([]);
    // Header only: nothing to write, nothing wrong.
    expect((await upload(h, { ssid: t.ssid, clId }, 'number,name\n')).body.data).toEqual({ rows: 0, added: 0, updated: 0, rejectedCount: 0, rejected: [] });
  });

  it("takes the export's credentials (query ssid, userId + token, Bearer) and needs campaign.manage", async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const csv = 'number\n919800004001\n';
    expect((await upload(h, { clId }, csv)).http).toBe(401);
    expect((await upload(h, { clId, ssid: 'nope' }, csv)).body).toMatchObject({ status: 'error', code: 1014 });
    expect((await upload(h, { clId }, csv, { authorization: `Bearer ${t.ssid}` })).body.data.added).toBe(1);
    const tok = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid });
    expect((await upload(h, { clId, userId: tok.body.userId, token: tok.body.token }, csv)).body.data.updated).toBe(1);
    const viewer = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['campaign.view'] }) });
    const v = await login(h, viewer.email, viewer.password);
    const denied = await upload(h, { clId, ssid: v.ssid }, csv);
    expect(denied.http).toBe(403);
    expect(denied.body).toMatchObject({ code: 1015 });
    expect(denied.body.message).toContain('campaign.manage');
    // Another account's list is no list of this one.
    const other = await createTenant(h);
    expect((await upload(h, { clId, ssid: other.ssid }, csv)).body.code).toBe(1012);
  });
});
