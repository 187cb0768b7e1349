import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { agentRecord } from '../helpers/agent-list.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { MAX_CAD_IDS } from '../../src/modules/agent/agent.schemas.js';

forEachDatabase('Agent/setCad and Agent/unsetCad', (use) => {
  it('sets CAD per agent; failures go to data.errors and the request succeeds', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const role = await createRole(h, t);
    const a = (await createAgent(h, t, { role })).agentId;
    const b = (await createAgent(h, t, { role })).agentId;
    const gone = (await createAgent(h, t, { role })).agentId;
    await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId: gone });
    const foreign = (await createAgent(h, other)).agentId;
    const res = await h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: [String(a), b, foreign, gone, 'abc', a] });
    expect(res.body).toEqual({
      status: 'success',
      code: 200,
      message: 'CAD set',
      data: {
        updatedAgents: [
          { agentId: String(a), status: 'success' },
          { agentId: String(b), status: 'success' },
        ],
        errors: [
          { agentId: String(foreign), message: 'agent not found' },
          { agentId: String(gone), message: 'agent not found' },
          { agentId: 'abc', message: 'invalid agent id' },
        ],
      },
    });
    expect((await agentRecord(h, t, a))!.cad).toBe(1);
    expect((await agentRecord(h, t, b))!.cad).toBe(1);
    expect((await agentRecord(h, other, foreign))!.cad).toBe(0);
    // Setting again is still a success.
    const again = await h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: [a] });
    expect(again.body).toMatchObject({ data: { updatedAgents: [{ agentId: String(a), status: 'success' }], errors: [] } });
  });

  it('unsets CAD only where it is set; unknown or already unset agents are errors', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const role = await createRole(h, t);
    const a = (await createAgent(h, t, { role })).agentId;
    const b = (await createAgent(h, t, { role })).agentId;
    const foreign = (await createAgent(h, other)).agentId;
    await h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: [a] });
    await h.post('/api/v2/Agent/setCad', { ssid: other.ssid, agentIds: [foreign] });
    const res = await h.post('/api/v2/Agent/unsetCad', { ssid: t.ssid, agentIds: [a, b, foreign, 424242] });
    expect(res.body).toEqual({
      status: 'success',
      code: 200,
      message: 'CAD unset',
      data: {
        unsetCadAgents: [String(a)],
        errors: [
          { agentId: String(b), message: 'agent not found or already unset' },
          { agentId: String(foreign), message: 'agent not found or already unset' },
          { agentId: '424242', message: 'agent not found or already unset' },
        ],
      },
    });
    expect((await agentRecord(h, t, a))!.cad).toBe(0);
    expect((await agentRecord(h, other, foreign))!.cad).toBe(1);
    const twice = await h.post('/api/v2/Agent/unsetCad', { ssid: t.ssid, agentIds: [String(a)] });
    expect(twice.body).toMatchObject({ status: 'success', data: { unsetCadAgents: [], errors: [{ agentId: String(a) }] } });
  });

  it('1000 "invalid parameter" for a missing, misnamed or non-array agentIds; 1047 for an empty body', async () => {
    const h = use();
    const t = await createTenant(h);
    const a = (await createAgent(h, t)).agentId;
    for (const path of ['/api/v2/Agent/setCad', '/api/v2/Agent/unsetCad']) {
      for (const body of [{}, { agentId: [a] }, { agentIds: a }, { agentIds: String(a) }, { agentIds: { 0: a } }, { agentIds: [[a]] }, { agentIds: null }]) {
        const res = await h.post(path, { ssid: t.ssid, ...body });
        expect(res.body.code, `${path} ${JSON.stringify(body)}`).toBe(1000);
        expect(res.body.message).toMatch(/^Invalid parameter/);
      }
      expect((await h.post(path, {})).body.code).toBe(1047);
      expect((await h.post(path, '')).body.code).toBe(1047);
      const empty = await h.post(path, { ssid: t.ssid, agentIds: [] });
      expect(empty.body.status).toBe('success');
    }
    expect((await agentRecord(h, t, a))!.cad).toBe(0);
  });

  it(`takes at most ${MAX_CAD_IDS} ids per request`, async () => {
    const h = use();
    const t = await createTenant(h);
    const ids = Array.from({ length: MAX_CAD_IDS }, (_, i) => 9_000_000 + i);
    const okRes = await h.post<{ data: { errors: unknown[] } }>('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: ids });
    expect(okRes.body.status).toBe('success');
    expect(okRes.body.data.errors).toHaveLength(MAX_CAD_IDS);
    const tooMany = await h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: [...ids, 1] });
    expect(tooMany.body.code).toBe(1000);
  });
});
