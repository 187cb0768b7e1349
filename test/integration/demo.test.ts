import { describe, expect, it } from 'vitest';
import { DEMO_DIDS } from '../../src/demo/data.js';
import { demoTopologies } from '../../src/demo/outbound.js';
import { seedDemo } from '../../src/demo/seed.js';
import { DEMO_TRAFFIC, DEMO_WARMUP_SECS } from '../../src/demo/start.js';
import { prepareSimulation } from '../../src/simulator/session.js';
import { injectTransport } from '../../src/simulator/transport.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';
import { login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { processLogin, startServerProcess, type ServerProcess } from '../helpers/process.js';

const CREDS = { username: 'demo', password: 'demo-password' };
type Live = { message: { pr: unknown[]; lA: number; oCA: number; Ring: number; oBA: number; Dia: number } };

forEachDatabase('demo tenant', (use) => {
  async function live(h: Harness, ssid: string, groupid?: number) {
    const res = await h.post<Live>('/api/v2/Agent/live', { ssid, status: 'all', ...(groupid ? { groupid } : {}) });
    expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    return res.body.message;
  }

  it('seeds the demo tenant once: groups incl. 55, roles, 20 inbound and 8 outbound agents, DIDs, 300 contacts, rules, a campaign', async () => {
    const h = use();
    const first = await seedDemo(h.app, h.services.accounts, h.clock, CREDS);
    expect(first.skipped).toEqual([]);
    expect(first.createdAccount).toBe(true);
    expect(first.created).toEqual({ groups: 5, dids: 4, roles: 3, agents: 28, contacts: 300, lists: 1, leads: 3000, campaigns: 1 });
    const again = await seedDemo(h.app, h.services.accounts, h.clock, CREDS);
    expect(again).toMatchObject({
      createdAccount: false,
      accountId: first.accountId,
      skipped: [],
      created: { groups: 0, dids: 0, roles: 0, agents: 0, contacts: 0, lists: 0, leads: 0, campaigns: 0 },
      campaign: first.campaign,
    });

    const s = await login(h, CREDS.username, CREDS.password);
    const groups = (await h.post('/api/v2/group/list', { ssid: s.ssid })).body.data as { groupId: number; agentCount: number }[];
    expect(groups.map((g) => g.groupId)).toEqual([55, 56, 57, 58, 59]);
    expect(groups.every((g) => g.agentCount > 0)).toBe(true);
    // The 20 agents of the inbound groups, and the outbound team's 8 in group 59 alone.
    const agents = (await h.post('/api/v2/Agent/list', { ssid: s.ssid, quick: true })).body.response as { group: number[] }[];
    expect(agents.length).toBe(28);
    expect(agents.filter((a) => a.group.some((g) => g !== 59)).length).toBe(20);
    expect(agents.filter((a) => a.group.length === 1 && a.group[0] === 59).length).toBe(8);
    // The campaign waits as a draft for the demo's start, on its list of leads.
    const campaigns = (await h.post('/api/v2/campaign/list', { ssid: s.ssid })).body.data as {
      campaignId: number;
      state: string;
      groupId: number;
      mode: string;
    }[];
    expect(campaigns).toEqual([expect.objectContaining({ campaignId: first.campaign.campaignId, state: 'draft', groupId: 59, mode: 'predictive' })]);
    const lists = (await h.post('/api/v2/contactList/list', { ssid: s.ssid })).body.data as { clId: number; contacts: number }[];
    expect(lists).toEqual([expect.objectContaining({ clId: first.campaign.clId, contacts: 3000 })]);
    expect(((await h.post('/api/v2/did/list', { ssid: s.ssid })).body.data as unknown[]).length).toBe(4);
    const roles = (await h.post('/api/v2/role/list', { ssid: s.ssid, limit: 100 })).body.response as { name: string; agCount: number }[];
    expect(roles.map((r) => r.name).sort()).toEqual(['Agent', 'Supervisor', 'Team lead']);
    // The directory rules route/decide acts on.
    const decide = (caller: string, did: string) => h.post('/api/v2/route/decide', { ssid: s.ssid, caller, did });
    expect((await decide('919870000040', DEMO_DIDS[0]!.did)).body.data).toMatchObject({ blocked: true, reason: 'did' });
    expect((await decide('919870000299', DEMO_DIDS[1]!.did)).body.data).toMatchObject({ blocked: true, reason: 'contact' });
    expect((await decide('919870000020', DEMO_DIDS[1]!.did)).body.data).toMatchObject({ blocked: false, dnc: -1 });
    const sticky = await h.post('/api/v2/Directory/getSticky', { ssid: s.ssid, contact: '919870000000' });
    expect((sticky.body.data as unknown[]).length).toBe(1);
    // An agent of the demo logs in with its e-mail and the demo password.
    await login(h, 'asha.sharma@demo.callcenter.test', CREDS.password);
  });

  it('the demo warm-up replays five minutes at once: calls are in progress on the first look', async () => {
    const h = use();
    const { ssid } = await seedDemo(h.app, h.services.accounts, h.clock, CREDS);
    const api = injectTransport(h.app, { ssid });
    const { runner, model } = await prepareSimulation({
      transport: api,
      clock: h.clock,
      traffic: DEMO_TRAFFIC,
      topology: (await demoTopologies(api)).inbound,
      warmupSecs: DEMO_WARMUP_SECS,
      seed: 8,
    });
    await runner.tick();
    expect(runner.progress.errors).toBe(0);
    expect(model.stats.queued).toBeGreaterThan(10);
    expect(model.stats.answered).toBeGreaterThan(5);
    expect((await live(h, ssid)).lA).toBeGreaterThan(3);
    const queue = await h.post('/api/v2/queue/count', { ssid });
    expect((queue.body.data as { calls: unknown[] }).calls.length).toBe(model.callsInProgress);
    await runner.shutdown();
    expect(runner.progress.errors).toBe(0);
  });

  it('a short in-process simulation makes agents and calls live; shutdown clears them', async () => {
    const h = use();
    const { ssid } = await seedDemo(h.app, h.services.accounts, h.clock, CREDS);
    const api = injectTransport(h.app, { ssid });
    const { runner, model } = await prepareSimulation({
      transport: api,
      clock: h.clock,
      traffic: { ...DEMO_TRAFFIC, ratePerMin: 20 },
      topology: (await demoTopologies(api)).inbound,
      seed: 5,
    });
    // Ten simulated minutes in 5-second steps, on the manual clock: no sleeping.
    for (let i = 0; i < 120; i++) {
      h.clock.advance(5000);
      await runner.tick();
    }
    expect(runner.progress.lastError).toBeUndefined();
    expect(runner.progress.errors).toBe(0);
    expect(runner.progress.accepted).toBe(runner.progress.eventsSent);
    expect(runner.progress.decisions).toBeGreaterThan(100);
    expect(model.stats.answered).toBeGreaterThan(50);
    expect(model.stats.blocked).toBeGreaterThan(0);

    // Agent/live without a group shows group 55 (the default), where 7 of the 20 agents work.
    const g55 = await live(h, ssid);
    expect(g55.pr).toHaveLength(7);
    expect(g55.lA).toBeGreaterThan(3);
    let busy = 0;
    let loggedIn = 0;
    for (const g of [55, 56, 57, 58]) {
      const m = await live(h, ssid, g);
      busy += m.oCA + m.Ring + m.Dia;
      loggedIn += m.lA;
    }
    expect(loggedIn).toBeGreaterThan(10);
    expect(busy).toBeGreaterThan(0);
    // The inbound simulator leaves the outbound team alone (its own switch logs it in: demo-campaign.test.ts).
    expect((await live(h, ssid, 59)).lA).toBe(0);

    await runner.shutdown();
    expect(runner.progress.errors).toBe(0);
    for (const g of [55, 56, 57, 58]) expect((await live(h, ssid, g)).lA).toBe(0);
  });
});

for (const dialect of testDialects()) {
  describe(`CALLCENTER_DEMO=1 start [${dialect}]`, () => {
    async function campaigns(p: ServerProcess, ssid: string): Promise<Array<{ campaignId: number; state: string }>> {
      return (await p.post('/api/v2/campaign/list', { ssid })).body!.data as Array<{ campaignId: number; state: string }>;
    }

    async function liveCount(p: ServerProcess, ssid: string): Promise<number> {
      let total = 0;
      for (const groupid of [55, 56, 57, 58]) total += ((await p.post('/api/v2/Agent/live', { ssid, groupid })).body as unknown as Live).message.lA;
      return total;
    }

    it('serves the demo tenant with live agents at once; a restart duplicates nothing', async () => {
      const t = await freshDatabase(dialect);
      const env = { ...t.env, CALLCENTER_DEMO: '1' };
      try {
        let p = await startServerProcess({ env, readyTimeoutMs: 60_000 });
        let ssid = await processLogin(p, 'demo', 'demo-password');
        // The simulator logs the agents in on its first tick, right after start.
        let logged = 0;
        for (let i = 0; i < 50 && logged === 0; i++) {
          logged = await liveCount(p, ssid);
          if (!logged) await new Promise((r) => setTimeout(r, 100));
        }
        expect(logged).toBeGreaterThan(5);
        // Once the server listens the outbound team's switch reads the stream, the campaign starts and dials.
        await expect.poll(() => campaigns(p, ssid), { timeout: 30_000, interval: 200 }).toEqual([expect.objectContaining({ state: 'running' })]);
        const [campaign] = await campaigns(p, ssid);
        await expect
          .poll(async () => ((await p.post('/api/v2/campaign/status', { ssid, campaignId: campaign!.campaignId })).body!.data as { lines: number }).lines, {
            timeout: 30_000,
            interval: 200,
          })
          .toBeGreaterThan(0);
        expect(await p.stop()).toBe(0);

        p = await startServerProcess({ env, readyTimeoutMs: 60_000 });
        try {
          ssid = await processLogin(p, 'demo', 'demo-password');
          expect(((await p.post('/api/v2/Agent/list', { ssid, quick: true })).body!.response as unknown[]).length).toBe(28);
          expect(((await p.post('/api/v2/group/list', { ssid })).body!.data as unknown[]).length).toBe(5);
          // The campaign the first run paused on its way out runs again, the same one.
          await expect.poll(() => campaigns(p, ssid), { timeout: 30_000, interval: 200 }).toEqual([expect.objectContaining({ state: 'running' })]);
          expect(((await p.post('/api/v2/did/list', { ssid })).body!.data as unknown[]).length).toBe(4);
          expect(p.output()).not.toMatch(/demo tenant could not start/);
        } finally {
          await p.stop();
        }
      } finally {
        await t.db.close();
        await t.drop();
      }
    }, 180_000);
  });
}
