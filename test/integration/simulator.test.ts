import { describe, expect, it } from 'vitest';
import { prepareSimulation } from '../../src/simulator/session.js';
import { parseTopology } from '../../src/simulator/topology.js';
import { httpTransport, injectTransport } from '../../src/simulator/transport.js';
import { createAgent, createDid, createGroup, uniquePhone } from '../helpers/admin.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';

forEachDatabase('simulator against the service', (use) => {
  async function tenantWithAgents(h: Harness) {
    const t = await createTenant(h);
    const g1 = await createGroup(h, t, { groupId: 55 });
    const g2 = await createGroup(h, t, { groupId: 77 });
    const d1 = await createDid(h, t);
    const d2 = await createDid(h, t);
    const a55: number[] = [];
    const a77: number[] = [];
    for (let i = 0; i < 4; i++) a55.push((await createAgent(h, t, { group: g1 })).agentId);
    for (let i = 0; i < 3; i++) a77.push((await createAgent(h, t, { group: g2 })).agentId);
    return { t, groups: [g1, g2], dids: [d1, d2], a55, a77 };
  }

  it('with a switch token and a topology file: every event accepted, blocked callers never queued', async () => {
    const h = use();
    const { t, dids, a55, a77 } = await tenantWithAgents(h);
    const blocked = uniquePhone();
    await h.post('/api/v2/Directory/Blacklist', { ssid: t.ssid, contact: blocked, DID: dids });
    const sw = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' })).body;
    const topology = parseTopology(
      JSON.stringify({
        routes: [
          { did: dids[0], groupId: 55 },
          { did: dids[1], groupId: 77 },
        ],
        groups: [
          { groupId: 55, agentIds: a55 },
          { groupId: 77, agentIds: a77 },
        ],
        callers: [blocked, uniquePhone()],
      }),
    );
    const { runner, model } = await prepareSimulation({
      transport: injectTransport(h.app, { userId: sw.userId, token: sw.token }),
      clock: h.clock,
      topology,
      traffic: { ratePerMin: 30, unknownCallerShare: 0.2, loggedInShare: 1 },
      seed: 11,
    });
    for (let i = 0; i < 90; i++) {
      h.clock.advance(4000);
      await runner.tick();
    }
    expect(runner.progress.lastError).toBeUndefined();
    expect(runner.progress.errors).toBe(0);
    expect(model.stats.blocked).toBeGreaterThan(5);
    expect(model.stats.queued).toBeGreaterThan(50);
    expect(runner.progress.blocked).toBe(model.stats.blocked);
    await runner.shutdown();
    expect(runner.progress.errors).toBe(0);
    // Every call ended (shutdown) and reached the history; none of the blocked caller's.
    const calls = await h.db.all<{ caller: string }>('SELECT caller FROM calls WHERE account_id = $1', [t.accountId]);
    expect(calls).toHaveLength(model.stats.queued);
    expect(calls.filter((c) => c.caller === blocked)).toEqual([]);
  });

  it('over HTTP: discovers groups, agents and DIDs with an API token and drives traffic', async () => {
    const h = use();
    const { t, a55, a77 } = await tenantWithAgents(h);
    const api = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid })).body;
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const address = h.app.server.address() as { port: number };
    const { runner, topology } = await prepareSimulation({
      transport: httpTransport(`http://127.0.0.1:${address.port}`, api),
      clock: h.clock,
      traffic: { ratePerMin: 20, loggedInShare: 1 },
      seed: 12,
    });
    expect(topology.groups).toEqual([
      { groupId: 55, agentIds: a55 },
      { groupId: 77, agentIds: a77 },
    ]);
    expect(topology.routes.map((r) => r.groupId).sort()).toEqual([55, 77]);
    for (let i = 0; i < 30; i++) {
      h.clock.advance(4000);
      await runner.tick();
    }
    expect(runner.progress.errors).toBe(0);
    expect(runner.progress.accepted).toBeGreaterThan(20);
    await runner.shutdown();
  });

  it('a run killed without shutdown leaves live calls behind; the next run ends them and starts clean', async () => {
    const h = use();
    const { t } = await tenantWithAgents(h);
    const api = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid })).body;
    const transport = injectTransport(h.app, api);
    const first = await prepareSimulation({ transport, clock: h.clock, traffic: { ratePerMin: 60, loggedInShare: 1, patienceSecs: 1e6 }, seed: 21 });
    for (let i = 0; i < 20; i++) {
      h.clock.advance(3000);
      await first.runner.tick();
    }
    const liveCalls = async () =>
      ((await h.post('/api/v2/queue/list', { ssid: t.ssid, Modules: ['calls'], size: 500 })).body.data as { calls: { callId: string }[] }).calls;
    expect((await liveCalls()).length).toBeGreaterThan(3);
    // No shutdown: as after kill -9.
    const second = await prepareSimulation({ transport, clock: h.clock, traffic: { ratePerMin: 60, loggedInShare: 1 }, seed: 22 });
    expect((await liveCalls()).filter((c) => c.callId.startsWith(first.runId))).toEqual([]);
    for (let i = 0; i < 20; i++) {
      h.clock.advance(3000);
      await second.runner.tick();
    }
    expect(second.runner.progress.lastError).toBeUndefined();
    expect(second.runner.progress.errors).toBe(0);
    await second.runner.shutdown();
    expect(await liveCalls()).toEqual([]);
  });

  it('a switch token cannot discover the topology: a clear error', async () => {
    const h = use();
    const { t } = await tenantWithAgents(h);
    const sw = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' })).body;
    await expect(prepareSimulation({ transport: injectTransport(h.app, sw), clock: h.clock })).rejects.toThrow(/Agent\/list answered 1015/);
  });
});

for (const dialect of testDialects()) {
  describe(`callcenter seed --demo and simulate [${dialect}]`, () => {
    it('seeds the demo tenant idempotently and simulates in process for a few seconds', async () => {
      const t = await freshDatabase(dialect);
      try {
        const first = await runCli(['seed', '--demo'], t.env);
        expect(first.code, first.output).toBe(0);
        expect(JSON.parse(first.stdout)).toMatchObject({
          username: 'demo',
          createdAccount: true,
          created: { agents: 28, contacts: 300, leads: 3000, campaigns: 1 },
        });
        const second = await runCli(['seed', '--demo'], t.env);
        expect(second.code, second.output).toBe(0);
        expect(JSON.parse(second.stdout)).toMatchObject({
          createdAccount: false,
          created: { groups: 0, dids: 0, roles: 0, agents: 0, contacts: 0, leads: 0, campaigns: 0 },
        });
        const n = await t.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM accounts WHERE username = 'demo'");
        expect(Number(n!.n)).toBe(1);

        const sim = await runCli(['simulate', '--duration', '3', '--rate', '600', '--speed', '5', '--seed', '3'], t.env);
        expect(sim.code, sim.output).toBe(0);
        expect(sim.stdout).toMatch(/simulating 600 calls\/min at 5x on 4 DIDs, 4 groups, 20 agents/);
        const summary = JSON.parse(sim.stdout.trim().split('\n').pop()!) as { queued: number; errors: number; accepted: number };
        expect(summary.queued).toBeGreaterThan(5);
        expect(summary.errors).toBe(0);
        expect(summary.accepted).toBeGreaterThan(summary.queued);
        const bad = await runCli(['simulate', '--rate', 'fast'], t.env);
        expect(bad.code).toBe(2);
        expect(bad.output).toContain('--rate must be a positive number');
      } finally {
        await t.db.close();
        await t.drop();
      }
    }, 120_000);
  });
}
