import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

const REFERENCE = { offered: 100, intervalMinutes: 30, aht: 180, target: { serviceLevel: 80, seconds: 20 } };

forEachDatabase('staffing/erlang', (use) => {
  it('answers the reference values of PRODUCT.md §14 (Erlang C, shrinkage, the occupancy cap, Erlang A)', async () => {
    const h = use();
    const t = await createTenant(h);
    const ask = async (body: Record<string, unknown>) => {
      const res = await h.post('/api/v2/staffing/erlang', { ssid: t.ssid, ...body });
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
      return res.body.data;
    };
    expect(await ask({ ...REFERENCE, shrinkage: 30 })).toEqual({
      traffic: 10,
      agents: 14,
      scheduled: 20,
      serviceLevel: 88.84,
      pWait: 17.41,
      asa: 7.84,
      occupancy: 71.43,
    });
    expect(await ask({ ...REFERENCE, maxOccupancy: 70 })).toMatchObject({ agents: 15, scheduled: 15, occupancy: 66.67 });
    expect(await ask({ ...REFERENCE, patience: 300 })).toMatchObject({ agents: 13, pAbandon: 2.5 });
    // 90 % within 20 s takes the 14th agent: the figures of §14 at 14 agents.
    expect(await ask({ ...REFERENCE, target: { serviceLevel: 90, seconds: 20 }, patience: 300 })).toEqual({
      traffic: 10,
      agents: 14,
      scheduled: 14,
      serviceLevel: 91.68,
      pWait: 14.53,
      asa: 4.2,
      occupancy: 70.43,
      pAbandon: 1.4,
    });
  });

  it('refuses missing and out-of-range fields (1000) and traffic over 10,000 Erlangs (1001)', async () => {
    const h = use();
    const t = await createTenant(h);
    const code = async (body: Record<string, unknown>) => (await h.post('/api/v2/staffing/erlang', { ssid: t.ssid, ...body })).body.code;
    const { offered: _o, ...noOffered } = REFERENCE;
    expect(await code(noOffered)).toBe(1000);
    expect(await code({ ...REFERENCE, target: { serviceLevel: 100, seconds: 20 } })).toBe(1000);
    expect(await code({ ...REFERENCE, target: { serviceLevel: 0, seconds: 20 } })).toBe(1000);
    expect(await code({ ...REFERENCE, aht: 0 })).toBe(1000);
    expect(await code({ ...REFERENCE, shrinkage: 100 })).toBe(1000);
    expect(await code({ ...REFERENCE, maxOccupancy: 0 })).toBe(1000);
    expect(await code({ ...REFERENCE, patience: -1 })).toBe(1000);
    expect(await code({ ...REFERENCE, intervalMinutes: 7.5 })).toBe(1000);
    expect(await code({ ...REFERENCE, offered: 'many' })).toBe(1000);
    // 1,000,000 calls of an hour in 30 minutes: 2,000,000 Erlangs.
    const huge = await h.post('/api/v2/staffing/erlang', { ssid: t.ssid, ...REFERENCE, offered: 1_000_000, aht: 3600 });
    expect(huge.body).toMatchObject({ status: 'error', code: 1001 });
    expect(huge.body.message).toContain('10000');
    // 10,000 Erlangs exactly is answered.
    const edge = await h.post('/api/v2/staffing/erlang', { ssid: t.ssid, ...REFERENCE, offered: 100_000, aht: 180 });
    expect(edge.body.data).toMatchObject({ traffic: 10000 });
  });

  it('needs analysis.view (1015)', async () => {
    const h = use();
    const t = await createTenant(h);
    const viewer = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['analysis.view'] }) });
    const other = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.view'] }) });
    const allowed = await h.post('/api/v2/staffing/erlang', { ssid: (await login(h, viewer.email, viewer.password)).ssid, ...REFERENCE });
    expect(allowed.body.data).toMatchObject({ agents: 14 });
    const denied = await h.post('/api/v2/staffing/erlang', { ssid: (await login(h, other.email, other.password)).ssid, ...REFERENCE });
    expect(denied.body).toMatchObject({ status: 'error', code: 1015 });
  });
});
