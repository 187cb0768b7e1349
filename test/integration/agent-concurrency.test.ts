import { expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { listAgents } from '../helpers/agent-list.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { tryLock, unlock } from '../../src/db/locks.js';
import { agentLockKey } from '../../src/modules/agent/agent.service.js';

/** `n` agents created through the API, sharing one role. */
async function manyAgents(h: Harness, t: { ssid: string; userId: string }, n: number): Promise<number[]> {
  const role = await createRole(h, t);
  const ids: number[] = [];
  // A few at a time: password hashing runs on the thread pool.
  for (let i = 0; i < n; i += 5) {
    const batch = await Promise.all(Array.from({ length: Math.min(5, n - i) }, () => createAgent(h, t, { role })));
    ids.push(...batch.map((a) => a.agentId));
  }
  return ids.sort((x, y) => x - y);
}

forEachDatabase('concurrent changes to an agent', (use) => {
  it('a change to an agent whose lock is held elsewhere gets 1501 and changes nothing', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const [a, b] = (await manyAgents(h, t, 2)) as [number, number];
    // Another node (here: the test) is processing agent a.
    const owner = (await tryLock(h.db, agentLockKey(a), 60_000))!;
    expect(owner).toBeTruthy();
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['/api/v2/Agent/setCad', { agentIds: [b, a] }],
      ['/api/v2/Agent/unsetCad', { agentIds: [a] }],
      ['/api/v2/Agent/update', { agentId: a, name: 'Changed Name' }],
      ['/api/v2/Agent/delete', { agentId: a }],
      ['/api/v2/Agent/updateAgentGroupMapping', { agentId: a, group: { [g]: { receive_call: 'Y' } } }],
    ];
    for (const [path, body] of attempts) {
      const res = await h.post(path, { ssid: t.ssid, ...body });
      expect(res.body, path).toMatchObject({ status: 'error', code: 1501, message: expect.stringMatching(/^Data already in processing/) });
    }
    const before = await listAgents(h, t);
    expect(before.map((r) => [r.unique_id, r.cad, r.name, r.group])).toEqual([
      [a, 0, 'Test Agent', []],
      [b, 0, 'Test Agent', []],
    ]);
    // Other agents are not blocked, and the agent is free again once the lock is released.
    expect((await h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: [b] })).body.status).toBe('success');
    await unlock(h.db, agentLockKey(a), owner);
    expect((await h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: [a, b] })).body.status).toBe('success');
  });

  it('a lock left by a crashed process expires', async () => {
    const h = use();
    const t = await createTenant(h);
    const [a] = (await manyAgents(h, t, 1)) as [number];
    // Taken a minute ago for 30 s by a process that died.
    await tryLock(h.db, agentLockKey(a), 30_000, Date.now() - 60_000);
    expect((await h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: [a] })).body.status).toBe('success');
  });

  it('of two overlapping bulk requests sent at once, exactly one gets 1501; the other applies fully', async () => {
    const h = use();
    const t = await createTenant(h);
    // Each request covers more than one write chunk (50 agents), so the first
    // to take its locks is provably still running (holding them) when the
    // other one asks for them.
    // On a fast, idle machine the first request can still finish before the second
    // asks for its locks (then both rightly succeed): try again on fresh agents.
    let ids: number[] = [];
    let first: number[] = [];
    let second: number[] = [];
    let r1: Awaited<ReturnType<typeof h.post>> | undefined;
    let r2: Awaited<ReturnType<typeof h.post>> | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      ids = await manyAgents(h, t, 100);
      first = ids.slice(0, 60);
      second = ids.slice(40);
      [r1, r2] = await Promise.all([
        h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: first }),
        h.post('/api/v2/Agent/setCad', { ssid: t.ssid, agentIds: second }),
      ]);
      if (r1.body.code !== 200 || r2.body.code !== 200) break;
    }
    if (!r1 || !r2) throw new Error('no attempt ran');
    const codes = [r1.body.code, r2.body.code].sort((x, y) => x - y);
    expect(codes, JSON.stringify([r1.body.status, r2.body.status])).toEqual([200, 1501]);
    const [winner, loser] = r1.body.code === 200 ? [first, second] : [second, first];
    const cad = new Map((await listAgents(h, t)).map((r) => [r.unique_id, r.cad]));
    for (const id of ids) expect(cad.get(id), String(id)).toBe(winner.includes(id) ? 1 : 0);
    expect(loser.some((id) => !winner.includes(id))).toBe(true);
    // Every lock was released: both succeed now.
    const again = await Promise.all([
      h.post('/api/v2/Agent/unsetCad', { ssid: t.ssid, agentIds: ids.slice(0, 10) }),
      h.post('/api/v2/Agent/unsetCad', { ssid: t.ssid, agentIds: ids.slice(10, 20) }),
    ]);
    expect(again.map((r) => r.body.status)).toEqual(['success', 'success']);
    // Up to five attempts of 100 agents each: on a loaded machine (CI beside other work) that is more than the default 30 s.
  }, 120_000);
});
