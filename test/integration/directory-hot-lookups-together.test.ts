import { expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';

let seq = 0;
const num = () => `9177${String(Date.now() % 1_000_000).padStart(6, '0')}${String(seq++ % 100).padStart(2, '0')}`;

/**
 * getDnc and getInfo asked many at once, as a CRM's dialer does: on
 * PostgreSQL the reads of one turn share one statement per account
 * (db/batched-point-read.ts). Each answer must be the one it gets alone,
 * whatever else was asked with it, and must see every write made before it.
 */
forEachDatabase('directory: hot lookups asked together', (use) => {
  const post = (h: Harness, op: string, body: Record<string, unknown>) => h.post(`/api/v2/Directory/${op}`, body);

  it('answers each of many concurrent getDnc / getInfo as it answers it alone, across two accounts, with and without the metadata', async () => {
    const h = use();
    const [a, b] = [await createTenant(h), await createTenant(h)];
    const contacts = Array.from({ length: 6 }, num);
    // Account a: contacts 0–2 saved, 0 and 1 on the DNC list. Account b: only contact 0, another name.
    const created = [];
    const names = ['Asha', 'Bina', 'Chen'];
    for (const [i, c] of contacts.slice(0, 3).entries()) {
      created.push(await post(h, 'create', { ssid: a.ssid, contact: c, contactinfo: { name: names[i], custom_tier: String(i) }, other: { totalcalls: i } }));
    }
    created.push(await post(h, 'create', { ssid: b.ssid, contact: contacts[0], contactinfo: { name: 'Dev' } }));
    for (const c of created) expect(c.body.status, JSON.stringify(c.body)).toBe('success');
    await h.post('/api/v2/Directory/setDnc', { ssid: a.ssid, contact: contacts[0], dnc: -1 });
    await h.post('/api/v2/Directory/setDnc', { ssid: a.ssid, contact: contacts[1], dnc: Math.floor(h.clock.now() / 1000) + 3600 });

    const asks: Array<[string, Record<string, unknown>]> = [];
    for (const t of [a, b]) {
      for (const c of contacts) {
        asks.push(['getDnc', { ssid: t.ssid, contact: c }]);
        asks.push(['getInfo', { ssid: t.ssid, cn: c }]);
        asks.push(['getInfo', { ssid: t.ssid, cn: c, field: 'all' }]);
      }
    }
    asks.push(...asks.slice(0, 9)); // the same contact asked twice in one turn
    const alone = [];
    for (const [op, body] of asks) alone.push((await post(h, op, body)).body);
    const together = await Promise.all(asks.map(([op, body]) => post(h, op, body)));
    expect(together.map((r) => r.body)).toEqual(alone);
    // The answers are the right ones, not merely consistent: a's contact 1 is listed, b's is not; b's contact 0 is Dev.
    expect(alone[0]).toMatchObject({ data: { dnc: -1 } });
    expect(alone[3 * 6]).toMatchObject({ data: { dnc: 0 } });
    expect(alone[3 * 6 + 1]).toMatchObject({ status: 'success', Cu: { Name: 'Dev' } });
    expect(alone[3 * 6 + 4]).toMatchObject({ status: 'error', code: 1012 });
  });

  it('a lookup asked with a write sees the write once the write is answered', async () => {
    const h = use();
    const t = await createTenant(h);
    const contact = num();
    for (const dnc of [-1, 0, -1]) {
      await h.post('/api/v2/Directory/setDnc', { ssid: t.ssid, contact, dnc });
      const reads = await Promise.all(Array.from({ length: 5 }, () => post(h, 'getDnc', { ssid: t.ssid, contact })));
      expect(reads.map((r) => r.body.data)).toEqual(Array.from({ length: 5 }, () => ({ dnc })));
    }
  });
});
