import { expect, it } from 'vitest';
import { createAgent, createDid, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

forEachDatabase('DIDs', (use) => {
  it('normalises numbers to digits and lists the account’s numbers', async () => {
    const h = use();
    const t = await createTenant(h);
    const res = await h.post('/api/v2/did/create', { ssid: t.ssid, did: '+91 (80) 4567-1234', name: 'Main line' });
    expect(res.body).toMatchObject({ status: 'success', code: 200, data: { did: '918045671234' } });
    await createDid(h, t, '1800123456');
    const numeric = await h.post('/api/v2/did/create', { ssid: t.ssid, did: 5551234 });
    expect(numeric.body).toMatchObject({ data: { did: '5551234' } });
    const list = await h.post<{ data: Array<{ did: string; name: string }> }>('/api/v2/did/list', { ssid: t.ssid });
    expect(list.body.data.map((d) => [d.did, d.name])).toEqual([
      ['1800123456', ''],
      ['5551234', ''],
      ['918045671234', 'Main line'],
    ]);
  });

  it('refuses invalid numbers and numbers any account already has (1516)', async () => {
    const h = use();
    const a = await createTenant(h);
    const b = await createTenant(h);
    const did = await createDid(h, a);
    for (const bad of ['12', 'abc', '1234567890123456', '', { n: 1 }, 1.5]) {
      const res = await h.post('/api/v2/did/create', { ssid: a.ssid, did: bad });
      expect(res.body.code, JSON.stringify(bad)).toBe(1516);
    }
    expect((await h.post('/api/v2/did/create', { ssid: a.ssid, did })).body.code).toBe(1516);
    // A number belongs to one tenant: another account cannot take it, however it is written.
    const spaced = `+${did.slice(0, 3)} ${did.slice(3)}`;
    expect((await h.post('/api/v2/did/create', { ssid: b.ssid, did: spaced })).body.code).toBe(1516);
    expect((await h.post('/api/v2/did/create', { ssid: b.ssid })).body.code).toBe(1000);
  });

  it('deletes only the account’s own numbers (1516 otherwise)', async () => {
    const h = use();
    const a = await createTenant(h);
    const b = await createTenant(h);
    const mine = await createDid(h, a);
    const theirs = await createDid(h, b);
    expect((await h.post('/api/v2/did/delete', { ssid: a.ssid, did: theirs })).body.code).toBe(1516);
    expect((await h.post('/api/v2/did/delete', { ssid: a.ssid, did: '99999999' })).body.code).toBe(1516);
    expect((await h.post('/api/v2/did/delete', { ssid: a.ssid, did: 'x' })).body.code).toBe(1516);
    const del = await h.post('/api/v2/did/delete', { ssid: a.ssid, did: mine });
    expect(del.body).toMatchObject({ status: 'success', data: { did: mine } });
    expect((await h.post<{ data: unknown[] }>('/api/v2/did/list', { ssid: a.ssid })).body.data).toEqual([]);
    expect((await h.post<{ data: unknown[] }>('/api/v2/did/list', { ssid: b.ssid })).body.data).toHaveLength(1);
    // Once released, any account may take it.
    expect((await h.post('/api/v2/did/create', { ssid: b.ssid, did: mine })).body.status).toBe('success');
  });

  it('requires number.manage for every DID operation', async () => {
    const h = use();
    const t = await createTenant(h);
    const did = await createDid(h, t);
    const agent = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.view', 'agent.manage'] }) });
    const s = await login(h, agent.email, agent.password);
    for (const [path, body] of [
      ['/api/v2/did/create', { did: '5550001111' }],
      ['/api/v2/did/delete', { did }],
      ['/api/v2/did/list', {}],
    ] as const) {
      const res = await h.post(path, { ssid: s.ssid, ...body });
      expect(res.body.code, path).toBe(1015);
      expect(res.body.message).toContain('number.manage');
    }
    const mgr = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['number.manage'] }) });
    const s2 = await login(h, mgr.email, mgr.password);
    expect((await h.post('/api/v2/did/list', { ssid: s2.ssid })).body.status).toBe('success');
  });
});
