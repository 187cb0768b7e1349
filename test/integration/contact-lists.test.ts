import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, login, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';

type Tenant = Session & { accountId: number };
interface ImportData {
  added: number;
  updated: number;
  rejected: Array<{ index: number; code: number; message: string }>;
}

async function newList(h: Harness, t: Session, name = 'List'): Promise<number> {
  const res = await h.post<{ data: { clId: number } }>('/api/v2/contactList/create', { ssid: t.ssid, name });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data.clId;
}

async function add(h: Harness, t: Session, body: Record<string, unknown>, path = '/api/v2/AddContactApi/addContact') {
  return h.post<{ data: { contact_id: number } }>(path, { ssid: t.ssid, ...body });
}

async function lists(h: Harness, t: Session) {
  return (await h.post<{ data: Array<{ clId: number; name: string; contacts: number; createdAt: number }> }>('/api/v2/contactList/list', { ssid: t.ssid })).body
    .data;
}

forEachDatabase('contact lists', (use) => {
  it('creates, lists and deletes lists; ids are per account and a foreign list is unknown (1012)', async () => {
    const h = use();
    const a = await createTenant(h);
    const b = await createTenant(h);
    const first = await newList(h, a, ' Renewals ');
    const second = await newList(h, a, 'Win-back');
    expect(second).toBe(first + 1);
    expect(await newList(h, b, 'Theirs')).toBe(1);
    await add(h, a, { clId: first, action: 0, record: { number: '919800000001' } });
    await add(h, a, { clId: first, action: 0, record: { number: '919800000002' } });
    const nowSec = Math.floor(h.clock.now() / 1000);
    expect(await lists(h, a)).toEqual([
      { clId: first, name: 'Renewals', contacts: 2, createdAt: nowSec },
      { clId: second, name: 'Win-back', contacts: 0, createdAt: nowSec },
    ]);
    expect((await h.post('/api/v2/contactList/create', { ssid: a.ssid, name: '  ' })).body.code).toBe(1000);
    expect((await h.post('/api/v2/contactList/create', { ssid: a.ssid })).body.code).toBe(1000);
    expect((await h.post('/api/v2/contactList/delete', { ssid: a.ssid, clId: 999 })).body.code).toBe(1012);
    expect((await h.post('/api/v2/contactList/delete', { ssid: a.ssid, clId: 'x' })).body.code).toBe(1012);
    const del = await h.post('/api/v2/contactList/delete', { ssid: a.ssid, clId: String(first) });
    expect(del.body).toMatchObject({ status: 'success', message: 'Contact list deleted' });
    expect((await lists(h, a)).map((l) => l.clId)).toEqual([second]);
    expect((await h.post('/api/v2/contactList/delete', { ssid: a.ssid, clId: first })).body.code).toBe(1012);
    // Its contacts went with it: the dialer finds none.
    expect(await h.services.contactLists.contactsForDialling(a.accountId, [first], { limit: 10 })).toEqual([]);
    expect(await lists(h, b)).toHaveLength(1);
  });

  it('addContact action 0 adds, and updates a number already in the list (normalised as the Directory does)', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const other = await newList(h, t);
    const first = await add(h, t, { clId, action: 0, record: { number: '+91 98000-00011', name: 'Asha', timezone: 'Asia/Kolkata', fields: { plan: 'gold' } } });
    expect(first.body).toMatchObject({ status: 'success', code: 200, data: { contact_id: expect.any(Number) } });
    const id = first.body.data.contact_id;
    expect(id).toBeGreaterThan(0);
    // The same number, written otherwise and as a JSON number: the same contact, updated field by field.
    const again = await add(h, t, { clId: String(clId), action: '0', record: { number: 919800000011, name: 'Asha R' } });
    expect(again.body.data.contact_id).toBe(id);
    const c = await h.services.contactLists.contactById(t.accountId, id);
    expect(c).toEqual({
      contactId: id,
      clId,
      position: expect.any(Number),
      number: '919800000011',
      name: 'Asha R',
      timezone: 'Asia/Kolkata',
      fields: { plan: 'gold' },
      scheduleAt: null,
      rescheduleAt: null,
      callbackSeq: 0,
      deleted: false,
    });
    // The same number in another list is another contact (contact ids are unique in the account).
    const elsewhere = await add(h, t, { clId: other, action: 0, record: { number: '919800000011' } });
    expect(elsewhere.body.data.contact_id).not.toBe(id);
    // contactList/addContact is the same operation.
    const alias = await add(h, t, { clId, action: 0, record: { number: '919800000012' } }, '/api/v2/contactList/addContact');
    expect(alias.body.data.contact_id).toBeGreaterThan(id);
    expect((await lists(h, t)).find((l) => l.clId === clId)!.contacts).toBe(2);
  });

  it('addContact action 1 updates only what it is given, 1012 when the number is not in the list', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const id = (await add(h, t, { clId, action: 0, record: { number: '919800000021', name: 'Ravi', fields: { a: 1 } }, campaignSchedule: 1_900_000_000 })).body
      .data.contact_id;
    const upd = await add(h, t, { clId, action: 1, record: { number: '919800000021', timezone: 'Europe/London' }, campaignReschedule: 1_900_000_600 });
    expect(upd.body.data.contact_id).toBe(id);
    expect(await h.services.contactLists.contactById(t.accountId, id)).toMatchObject({
      name: 'Ravi',
      timezone: 'Europe/London',
      fields: { a: 1 },
      scheduleAt: 1_900_000_000,
      rescheduleAt: 1_900_000_600,
    });
    // Fields given replace the stored ones; 0 clears a time.
    await add(h, t, { clId, action: 1, record: { number: '919800000021', fields: { b: 'x' } }, campaignSchedule: 0 });
    expect(await h.services.contactLists.contactById(t.accountId, id)).toMatchObject({ fields: { b: 'x' }, scheduleAt: null, rescheduleAt: 1_900_000_600 });
    const absent = await add(h, t, { clId, action: 1, record: { number: '919800000029' } });
    expect(absent.body.code).toBe(1012);
    expect((await lists(h, t))[0]!.contacts).toBe(1);
  });

  it('addContact action 2 soft-deletes: kept, never dialled again, not counted; 1012 when absent', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const keep = (await add(h, t, { clId, action: 0, record: { number: '919800000031' } })).body.data.contact_id;
    const gone = (await add(h, t, { clId, action: 0, record: { number: '919800000032', name: 'Old' } })).body.data.contact_id;
    const del = await add(h, t, { clId, action: 2, record: { number: '+91 9800000032' } });
    expect(del.body.data.contact_id).toBe(gone);
    expect(await h.services.contactLists.contactById(t.accountId, gone)).toMatchObject({ deleted: true, name: 'Old' });
    expect((await h.services.contactLists.contactsForDialling(t.accountId, [clId], { limit: 10 })).map((c) => c.contactId)).toEqual([keep]);
    expect((await lists(h, t))[0]!.contacts).toBe(1);
    expect(await h.services.contactLists.contactCounts(t.accountId, [clId])).toEqual({ live: 1, deleted: 1 });
    // Adding the number again updates the kept record; it stays deleted (never dialled again).
    const readd = await add(h, t, { clId, action: 0, record: { number: '919800000032', name: 'New' } });
    expect(readd.body.data.contact_id).toBe(gone);
    expect(await h.services.contactLists.contactById(t.accountId, gone)).toMatchObject({ deleted: true, name: 'New' });
    expect((await add(h, t, { clId, action: 2, record: { number: '919800000039' } })).body.code).toBe(1012);
  });

  it('contactList/contacts pages through a list in list order, soft-deleted contacts marked', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await add(h, t, { clId, action: 0, record: { number: `91980000009${i}`, name: `C${i}` } })).body.data.contact_id);
    await add(h, t, { clId, action: 2, record: { number: '919800000091' } });
    await add(h, t, { clId, action: 1, record: { number: '919800000092', fields: { n: 2 } }, campaignReschedule: 1_900_000_000 });
    type Page = { data: Array<Record<string, unknown>>; nextCursor: number | null };
    const p1 = await h.post<Page>('/api/v2/contactList/contacts', { ssid: t.ssid, clId, limit: 3 });
    expect(p1.body.data.map((c) => c.contact_id)).toEqual(ids.slice(0, 3));
    expect(p1.body.data[1]).toEqual({
      contact_id: ids[1],
      number: '919800000091',
      name: 'C1',
      timezone: '',
      fields: {},
      campaignSchedule: null,
      campaignReschedule: null,
      deleted: true,
    });
    expect(p1.body.data[2]).toMatchObject({ fields: { n: 2 }, campaignReschedule: 1_900_000_000, deleted: false });
    const p2 = await h.post<Page>('/api/v2/contactList/contacts', { ssid: t.ssid, clId, limit: 3, cursor: p1.body.nextCursor });
    expect(p2.body.data.map((c) => c.contact_id)).toEqual(ids.slice(3));
    expect(p2.body.nextCursor).toBeNull();
    expect((await h.post('/api/v2/contactList/contacts', { ssid: t.ssid, clId: 999 })).body.code).toBe(1012);
    expect((await h.post('/api/v2/contactList/contacts', { ssid: t.ssid, clId, limit: 1001 })).body.code).toBe(1000);
  });

  it('addContact refuses bad input with the code of each field', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const record = { number: '919800000041' };
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ clId: 999, action: 0, record }, 1012],
      [{ clId: 'abc', action: 0, record }, 1012],
      [{ action: 0, record }, 1000],
      [{ clId, action: 3, record }, 1000],
      [{ clId, record }, 1000],
      [{ clId, action: 0 }, 1000],
      [{ clId, action: 0, record: {} }, 1000],
      [{ clId, action: 0, record: { number: '12345' } }, 1005],
      [{ clId, action: 0, record: { number: 'abc' } }, 1005],
      [{ clId, action: 0, record: { number: '1234567890123456' } }, 1005],
      [{ clId, action: 0, record: { ...record, timezone: 'Mars/Olympus' } }, 1001],
      [{ clId, action: 0, record: { ...record, timezone: 5 } }, 1001],
      [{ clId, action: 0, record: { ...record, fields: { nested: { a: 1 } } } }, 1000],
      [{ clId, action: 0, record: { ...record, fields: [1] } }, 1000],
      [{ clId, action: 0, record: { ...record, name: 7 } }, 1000],
      [{ clId, action: 0, record, campaignSchedule: -5 }, 1001],
      [{ clId, action: 0, record, campaignSchedule: 'tomorrow' }, 1001],
      [{ clId, action: 0, record, campaignReschedule: 1.5 }, 1001],
    ];
    for (const [body, code] of cases) expect((await add(h, t, body)).body.code, JSON.stringify(body)).toBe(code);
    expect((await lists(h, t))[0]!.contacts).toBe(0);
  });

  it('deleteContact deletes for good; 1012 for an unknown list or a contact not in it', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const other = await newList(h, t);
    const id = (await add(h, t, { clId, action: 0, record: { number: '919800000051' } })).body.data.contact_id;
    const elsewhere = (await add(h, t, { clId: other, action: 0, record: { number: '919800000052' } })).body.data.contact_id;
    expect((await h.post('/api/v2/AddContactApi/deleteContact', { ssid: t.ssid, clId, delId: elsewhere })).body.code).toBe(1012);
    expect((await h.post('/api/v2/AddContactApi/deleteContact', { ssid: t.ssid, clId: 999, delId: id })).body.code).toBe(1012);
    const res = await h.post('/api/v2/AddContactApi/deleteContact', { ssid: t.ssid, clId, delId: String(id) });
    expect(res.body).toMatchObject({ status: 'success', message: 'Contact deleted' });
    expect(await h.services.contactLists.contactById(t.accountId, id)).toBeNull();
    expect((await h.post('/api/v2/AddContactApi/deleteContact', { ssid: t.ssid, clId, delId: id })).body.code).toBe(1012);
    // Gone for good: adding the number again makes a new contact.
    const readd = (await add(h, t, { clId, action: 0, record: { number: '919800000051' } })).body.data.contact_id;
    expect(readd).not.toBe(id);
  });

  it('import adds and updates many at once; a bad record is rejected alone, with its index and code', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    await add(h, t, { clId, action: 0, record: { number: '919800000061', name: 'Before' } });
    const res = await h.post<{ data: ImportData }>('/api/v2/contactList/import', {
      ssid: t.ssid,
      clId,
      records: [
        { number: '919800000061', name: 'After' },
        { number: '919800000062', timezone: 'America/New_York', fields: { tier: 2 } },
        { number: '12' },
        { number: '919800000063', timezone: 'Nowhere/Land' },
        'not a record',
        { number: '+91 98000 00062', name: 'Again' },
        { number: '919800000064', fields: { deep: { x: 1 } } },
        { number: '919800000065' },
      ],
    });
    expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    expect(res.body.data.added).toBe(2);
    expect(res.body.data.updated).toBe(2);
    expect(res.body.data.rejected.map((r) => [r.index, r.code])).toEqual([
      [2, 1005],
      [3, 1001],
      [4, 1000],
      [6, 1000],
    ]);
    expect(res.body.data.rejected[1]!.message).toContain('Nowhere/Land');
    const dial = await h.services.contactLists.contactsForDialling(t.accountId, [clId], { limit: 10 });
    expect(dial.map((c) => [c.number, c.name, c.timezone, c.fields])).toEqual([
      ['919800000061', 'After', '', {}],
      ['919800000062', 'Again', 'America/New_York', { tier: 2 }],
      ['919800000065', '', '', {}],
    ]);
    expect((await h.post('/api/v2/contactList/import', { ssid: t.ssid, clId: 999, records: [{ number: '919800000066' }] })).body.code).toBe(1012);
    expect((await h.post('/api/v2/contactList/import', { ssid: t.ssid, clId, records: 'x' })).body.code).toBe(1000);
    const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ number: String(910000000000 + i) }));
    expect((await h.post('/api/v2/contactList/import', { ssid: t.ssid, clId, records: tooMany })).body.code).toBe(1000);
    const most = await h.post<{ data: ImportData }>('/api/v2/contactList/import', { ssid: t.ssid, clId, records: tooMany.slice(1) });
    expect(most.body.data).toEqual({ added: 10_000, updated: 0, rejected: [] });
    expect((await lists(h, t))[0]!.contacts).toBe(10_003);
  });

  it('needs campaign.manage to write and campaign.view to list (1015 naming it)', async () => {
    const h = use();
    const t = await createTenant(h);
    const clId = await newList(h, t);
    const viewer = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['campaign.view'] }) });
    const manager = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['campaign.manage'] }) });
    const v = await login(h, viewer.email, viewer.password);
    const m = await login(h, manager.email, manager.password);
    expect((await lists(h, v)).map((l) => l.clId)).toEqual([clId]);
    const writes: Array<[string, Record<string, unknown>]> = [
      ['/api/v2/contactList/create', { name: 'x' }],
      ['/api/v2/contactList/delete', { clId }],
      ['/api/v2/contactList/import', { clId, records: [] }],
      ['/api/v2/AddContactApi/addContact', { clId, action: 0, record: { number: '919800000071' } }],
      ['/api/v2/contactList/addContact', { clId, action: 0, record: { number: '919800000071' } }],
      ['/api/v2/AddContactApi/deleteContact', { clId, delId: 1 }],
    ];
    for (const [path, body] of writes) {
      const res = await h.post(path, { ssid: v.ssid, ...body });
      expect(res.body.code, path).toBe(1015);
      expect(res.body.message).toContain('campaign.manage');
    }
    const denied = await h.post('/api/v2/contactList/list', { ssid: m.ssid });
    expect(denied.body.code).toBe(1015);
    expect(denied.body.message).toContain('campaign.view');
    expect((await add(h, m, { clId, action: 0, record: { number: '919800000071' } })).body.status).toBe('success');
  });

  it('answers the dialer: list order after a cursor, schedules, callback changes in order, one contact by id', async () => {
    const h = use();
    const t: Tenant = await createTenant(h);
    const other: Tenant = await createTenant(h);
    const l1 = await newList(h, t, 'one');
    const l2 = await newList(h, t, 'two');
    const now = 1_900_000_000;
    const ids: number[] = [];
    for (const [clId, n, extra] of [
      [l1, '919800000081', {}],
      [l2, '919800000082', { campaignSchedule: now + 60 }],
      [l1, '919800000083', { campaignReschedule: now - 10 }],
      [l2, '919800000084', { campaignReschedule: now - 100 }],
      [l1, '919800000085', { campaignReschedule: now + 100 }],
    ] as const) {
      ids.push((await add(h, t, { clId, action: 0, record: { number: n }, ...extra })).body.data.contact_id);
    }
    const cl = h.services.contactLists;
    expect(await cl.listsExist(t.accountId, [l1, l2])).toBe(true);
    expect(await cl.missingLists(t.accountId, [l1, 999, l2])).toEqual([999]);
    expect(await cl.listsExist(other.accountId, [l1])).toBe(false);
    const all = await cl.contactsForDialling(t.accountId, [l1, l2], { limit: 10 });
    expect(all.map((c) => c.contactId)).toEqual(ids);
    expect(all.map((c) => c.position)).toEqual([...all.map((c) => c.position)].sort((a, b) => a - b));
    const page1 = await cl.contactsForDialling(t.accountId, [l1, l2], { limit: 2 });
    const page2 = await cl.contactsForDialling(t.accountId, [l1, l2], { limit: 2, afterPosition: page1.at(-1)!.position });
    expect([...page1, ...page2].map((c) => c.contactId)).toEqual(ids.slice(0, 4));
    // With `now`, a contact scheduled later is left out until its time.
    expect((await cl.contactsForDialling(t.accountId, [l1, l2], { limit: 10, now })).map((c) => c.contactId)).toEqual([ids[0], ids[2], ids[3], ids[4]]);
    expect((await cl.contactsForDialling(t.accountId, [l1, l2], { limit: 10, now: now + 60 })).map((c) => c.contactId)).toEqual(ids);
    expect((await cl.contactsForDialling(t.accountId, [l1], { limit: 10 })).every((c) => c.clId === l1)).toBe(true);
    // Callback changes in change order after a number, each with its number; the mark is the last one's.
    const changes = await cl.callbackChanges(t.accountId, [l1, l2], 0, 10);
    expect(changes.map((c) => [c.contactId, c.rescheduleAt])).toEqual([
      [ids[2], now - 10],
      [ids[3], now - 100],
      [ids[4], now + 100],
    ]);
    const seqs = changes.map((c) => c.callbackSeq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect((await cl.listMarks(t.accountId)).callbacks).toBe(seqs[2]);
    expect((await cl.callbackChanges(t.accountId, [l2], seqs[0]!, 10)).map((c) => c.contactId)).toEqual([ids[3]]);
    // Other fields, or the same callback again, are no change; a new time or clearing it (0) is, numbered after the rest.
    await add(h, t, { clId: l1, action: 1, record: { number: '919800000083', name: 'x' }, campaignReschedule: now - 10 });
    await add(h, t, { clId: l1, action: 0, record: { number: '919800000085' }, campaignReschedule: 0 });
    await add(h, t, { clId: l1, action: 1, record: { number: '919800000081' }, campaignReschedule: now - 500 });
    const later = await cl.callbackChanges(t.accountId, [l1, l2], seqs[2]!, 10);
    expect(later.map((c) => [c.contactId, c.rescheduleAt])).toEqual([
      [ids[4], null],
      [ids[0], now - 500],
    ]);
    expect((await cl.listMarks(t.accountId)).callbacks).toBe(later[1]!.callbackSeq);
    expect((await cl.listMarks(other.accountId)).callbacks).toBe(0);
    // Another account sees none of it.
    expect(await cl.contactById(other.accountId, ids[0]!)).toBeNull();
    expect(await cl.contactsForDialling(other.accountId, [l1, l2], { limit: 10 })).toEqual([]);
    expect(await cl.callbackChanges(other.accountId, [l1, l2], 0, 10)).toEqual([]);
  });
});
