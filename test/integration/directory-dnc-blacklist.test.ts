import { expect, it } from 'vitest';
import { createAgent, createDid, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

const HOUR = 3600;
let seq = 0;
const num = () => `9166${String(Date.now() % 1_000_000).padStart(6, '0')}${String(seq++ % 100).padStart(2, '0')}`;

forEachDatabase('directory: DNC and blacklist', (use) => {
  async function setup() {
    const h = use();
    const t = await createTenant(h);
    const now = Math.floor(h.clock.now() / 1000);
    const post = (path: string, body: Record<string, unknown>) => h.post(path, { ssid: t.ssid, ...body });
    return { h, t, now, post };
  }

  it('setDnc 0, -1 and a future timestamp; getDnc reads them on both paths; unknown contact reads 0', async () => {
    const { now, post } = await setup();
    const contact = num();
    expect((await post('/api/v2/Directory/getDnc', { contact })).body).toEqual({ status: 'success', code: 200, data: { dnc: 0 } });
    const set = await post('/api/v2/Directory/setDnc', { contact, dnc: -1 });
    expect(set.body).toEqual({ status: 'success', code: 200, message: 'DNC status set' });
    expect((await post('/api/v2/getDnc', { contact: `+${contact}` })).body.data).toEqual({ dnc: -1 });
    await post('/api/v2/setDnc', { contact: Number(contact), dnc: now + HOUR });
    expect((await post('/api/v2/Directory/getDnc', { contact })).body.data).toEqual({ dnc: now + HOUR });
    await post('/api/v2/directory/setdnc', { contact, dnc: String(now + 2 * HOUR) });
    expect((await post('/api/v2/getDnc', { contact })).body.data).toEqual({ dnc: now + 2 * HOUR });
    const cleared = await post('/api/v2/Directory/setDnc', { contact, dnc: 0 });
    expect(cleared.body.message).toBe('Contact removed from the DNC list');
    expect((await post('/api/v2/Directory/getDnc', { contact })).body.data).toEqual({ dnc: 0 });
  });

  it('an expired DNC timestamp reads 0 (ManualClock)', async () => {
    const { h, now, post } = await setup();
    const contact = num();
    await post('/api/v2/setDnc', { contact, dnc: now + 60 });
    h.clock.advance(59_000);
    expect((await post('/api/v2/getDnc', { contact })).body.data).toEqual({ dnc: now + 60 });
    h.clock.advance(1_000);
    expect((await post('/api/v2/getDnc', { contact })).body.data).toEqual({ dnc: 0 });
  });

  it('setDnc: past or malformed date 1001 asking for a valid date; missing dnc 1000; contact 1000/1005', async () => {
    const { now, post } = await setup();
    const contact = num();
    for (const dnc of [now, now - 1, -2, 1.5, 'tomorrow', true, { at: 1 }, [1], 253_402_300_800, now * 1000, 2 ** 60]) {
      const res = await post('/api/v2/setDnc', { contact, dnc });
      expect(res.body.code, JSON.stringify(dnc)).toBe(1001);
      expect(res.body.message).toMatch(/valid date/);
    }
    // A millisecond time (over 10^11) is refused saying seconds are expected; 10^11 itself is still seconds.
    for (const dnc of [(now + HOUR) * 1000, String((now + HOUR) * 1000), 100_000_000_001]) {
      const res = await post('/api/v2/setDnc', { contact, dnc });
      expect(res.body, JSON.stringify(dnc)).toEqual({
        status: 'error',
        code: 1001,
        message: `Invalid data type or value: please provide a valid date: dnc ${Number(dnc)} can only be milliseconds: Unix seconds are expected`,
      });
    }
    expect((await post('/api/v2/setDnc', { contact, dnc: 100_000_000_000 })).body.status).toBe('success');
    expect((await post('/api/v2/setDnc', { contact })).body.code).toBe(1000);
    expect((await post('/api/v2/setDnc', { dnc: -1 })).body.code).toBe(1000);
    expect((await post('/api/v2/setDnc', { contact: '12ab', dnc: -1 })).body.code).toBe(1005);
    expect((await post('/api/v2/getDnc', { contact: '99' })).body.code).toBe(1005);
    expect((await post('/api/v2/getDnc', {})).body.code).toBe(1000);
  });

  it('DNC is independent of the blacklist and of the directory entry', async () => {
    const { t, h, post } = await setup();
    const did = await createDid(h, t);
    const contact = num();
    await post('/api/v2/Directory/Blacklist', { contact, DID: [did] });
    expect((await post('/api/v2/getDnc', { contact })).body.data).toEqual({ dnc: 0 });
    await post('/api/v2/setDnc', { contact, dnc: -1 });
    await post('/api/v2/Directory/Blacklist', { contact, DID: [] });
    expect((await post('/api/v2/getDnc', { contact })).body.data).toEqual({ dnc: -1 });
    await post('/api/v2/Directory/create', { contact, other: { blacklist: true } });
    await post('/api/v2/setDnc', { contact, dnc: 0 });
    const info = await post('/api/v2/Directory/getInfo', { cn: contact, field: 'all' });
    expect((info.body.Ot as Record<string, unknown>).blacklist).toBe(true);
  });

  it('Blacklist: exact DID set replaces the previous set, empty array removes, answered as {contact, DID}', async () => {
    const { h, t, post } = await setup();
    const [d1, d2, d3] = [await createDid(h, t), await createDid(h, t), await createDid(h, t)];
    const contact = num();
    const first = await post('/api/v2/Directory/Blacklist', { contact: `+${contact}`, DID: [d1, `+${d2}`, d1] });
    expect(first.body).toEqual({ status: 'success', code: 200, message: 'Blacklist updated', data: { contact, DID: [d1, d2] } });
    const lists = h.services.blacklist;
    expect((await lists.didsOf(t.accountId, contact)).sort()).toEqual([d1, d2].sort());
    await post('/api/v2/Directory/Blacklist', { contact, DID: [Number(d3)] });
    expect(await lists.didsOf(t.accountId, contact)).toEqual([d3]);
    const removed = await post('/api/v2/Directory/Blacklist', { contact, DID: [] });
    expect(removed.body).toEqual({ status: 'success', code: 200, message: 'Contact removed from the blacklist', data: { contact, DID: [] } });
    expect(await lists.didsOf(t.accountId, contact)).toEqual([]);
  });

  it('Blacklist errors: DID missing or not an array 1001, not the account DID 1516, blank contact without RESET 1000, bad contact 1005', async () => {
    const { h, t, post } = await setup();
    const d1 = await createDid(h, t);
    const other = await createTenant(h);
    const foreign = await createDid(h, other);
    const contact = num();
    await post('/api/v2/Directory/Blacklist', { contact, DID: [d1] });
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ contact }, 1001],
      [{ contact, DID: d1 }, 1001],
      [{ contact, DID: { d: d1 } }, 1001],
      [{ contact, DID: [[d1]] }, 1001],
      [{ contact, DID: [d1, foreign] }, 1516],
      [{ contact, DID: ['5550000199'] }, 1516],
      [{ contact, DID: ['ab'] }, 1516],
      [{ contact: '', DID: [d1] }, 1000],
      [{ contact: '  ', RESET: 0 }, 1000],
      [{ DID: [d1] }, 1000],
      [{ contact: '12x', DID: [d1] }, 1005],
    ];
    for (const [body, code] of cases) {
      const res = await post('/api/v2/Directory/Blacklist', body);
      expect(res.body.code, JSON.stringify(body)).toBe(code);
    }
    // Failed requests changed nothing.
    expect(await h.services.blacklist.didsOf(t.accountId, contact)).toEqual([d1]);
  });

  it('Blacklist RESET with a blank contact clears the whole account blacklist (data.cleared), only this account', async () => {
    const { h, t, post } = await setup();
    const did = await createDid(h, t);
    const other = await createTenant(h);
    const otherDid = await createDid(h, other);
    const [c1, c2, c3] = [num(), num(), num()];
    await post('/api/v2/Directory/Blacklist', { contact: c1, DID: [did] });
    await post('/api/v2/Directory/Blacklist', { contact: c2, DID: [did] });
    await h.post('/api/v2/Directory/Blacklist', { ssid: other.ssid, contact: c3, DID: [otherDid] });
    const reset = await post('/api/v2/Directory/Blacklist', { contact: '', RESET: 1 });
    expect(reset.body).toEqual({ status: 'success', code: 200, message: 'Blacklist cleared', data: { cleared: 2 } });
    const again = await post('/api/v2/Directory/Blacklist', { contact: '', RESET: true });
    expect(again.body.data).toEqual({ cleared: 0 });
    const lists = h.services.blacklist;
    expect(await lists.didsOf(t.accountId, c1)).toEqual([]);
    expect(await lists.didsOf(other.accountId, c3)).toEqual([otherDid]);
  });

  it('concurrent Blacklist requests for one contact leave exactly one of the sets, never an error', async () => {
    const { h, t, post } = await setup();
    const dids = [await createDid(h, t), await createDid(h, t), await createDid(h, t)];
    const contact = num();
    const sets = [[dids[0]!], [dids[1]!, dids[2]!], [dids[0]!, dids[1]!], [dids[2]!], [dids[0]!]];
    const answers = await Promise.all([...sets, ...sets].map((DID) => post('/api/v2/Directory/Blacklist', { contact, DID })));
    expect(answers.map((a) => a.body.status)).toEqual(Array(10).fill('success'));
    const final = await h.services.blacklist.didsOf(t.accountId, contact);
    expect(sets.map((s) => s.join(','))).toContain(final.join(','));
  });

  it('permissions: setDnc needs dnc.manage, Blacklist needs blacklist.manage, getDnc directory.view', async () => {
    const { h, t } = await setup();
    const agent = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['directory.view'] }) });
    const s = await login(h, agent.email, agent.password);
    const contact = num();
    expect((await h.post('/api/v2/getDnc', { ssid: s.ssid, contact })).body.status).toBe('success');
    const dnc = await h.post('/api/v2/setDnc', { ssid: s.ssid, contact, dnc: -1 });
    expect(dnc.body.code).toBe(1015);
    expect(dnc.body.message).toContain('dnc.manage');
    const bl = await h.post('/api/v2/Directory/Blacklist', { ssid: s.ssid, contact, DID: [] });
    expect(bl.body.message).toContain('blacklist.manage');
  });

  it("isolation: another tenant's DNC entries are invisible", async () => {
    const { h, post } = await setup();
    const other = await createTenant(h);
    const contact = num();
    await post('/api/v2/setDnc', { contact, dnc: -1 });
    expect((await h.post('/api/v2/getDnc', { ssid: other.ssid, contact })).body.data).toEqual({ dnc: 0 });
  });
});
