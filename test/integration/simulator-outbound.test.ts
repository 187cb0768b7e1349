import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { prepareOutbound } from '../../src/simulator/outbound-session.js';
import { injectTransport } from '../../src/simulator/transport.js';
import { campaignWorld, ok } from '../helpers/campaign-world.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { startServerProcess } from '../helpers/process.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders } from '../helpers/sse.js';
import { createCampaign, op, tick, world } from './campaigns.fixtures.js';

afterAll(() => closeReaders());

/**
 * `simulate --outbound` (docs/simulator.md): the simulator is the switch of
 * campaign dials. It reads `call.originate` from the real stream and answers
 * through `events/ingest`; the service's dialer runs on the harness's manual
 * clock, one tick per simulated second, so a campaign runs end to end in a
 * few seconds and its figures can be compared with the model's own counts.
 */
forEachDatabase(
  'simulate --outbound: the switch of campaign dials',
  (use) => {
    async function run(h: Harness, mode: 'progressive' | 'predictive', secs: number) {
      const numbers = Array.from({ length: 60 }, (_, i) => String(919_822_000_000 + Math.floor(Math.random() * 90_000) * 100 + i));
      const w = await world(h, { agents: 4, numbers });
      const campaignId = await createCampaign(h, w, { mode, amd: true, maxAttempts: 1, maxAbandonRate: 10 });
      const api = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: w.t.ssid })).body;
      const session = await prepareOutbound({
        api: injectTransport(h.app, { userId: api.userId, token: api.token }),
        baseUrl: await baseUrl(h),
        creds: { userId: api.userId, token: api.token },
        clock: h.clock,
        config: { speed: 1, humanShare: 0.4, machineShare: 0.2, busyShare: 0.1, talkSecs: 30, wrapupSecs: 5 },
        seed: 7,
      });
      const { runner, reader, model } = session;
      await runner.begin();
      reader.start();
      await reader.connected;
      expect((await op(h, w.t, 'start', { campaignId })).status).toBe('success');
      for (let s = 0; s < secs; s++) {
        h.clock.advance(1000);
        await runner.tick();
        await tick(h);
        // Every command the tick pushed has reached the simulator before the next simulated second.
        const seq = await h.services.liveState.sequence(w.t.accountId);
        await vi.waitFor(() => expect(reader.lastEventId).toBeGreaterThanOrEqual(seq), { timeout: 5000, interval: 5 });
      }
      await session.close();
      return { w, campaignId, model, runner };
    }

    for (const mode of ['progressive', 'predictive'] as const) {
      it(`${mode}: every dial answered, every event accepted; report/campaign counts what the model did`, async () => {
        const h = use();
        const { w, campaignId, model, runner } = await run(h, mode, 240);
        expect(runner.progress.errors, runner.progress.lastError).toBe(0);
        expect(runner.progress.commands).toBe(model.stats.dials);
        const s = model.stats;
        console.info(`[${h.dialect}] ${mode}: ${JSON.stringify(s)}`);
        expect(s.dials).toBeGreaterThan(20);
        expect(s.human).toBeGreaterThan(0);
        expect(s.connected).toBeGreaterThan(0);
        expect(s.talkSecs).toBeGreaterThan(0);
        const from = Math.floor(h.clock.now() / 1000) - 3600;
        const rep = await h.post<{ data: Array<Record<string, number>> }>('/api/v2/report/campaign', {
          ssid: w.t.ssid,
          campaignId,
          from,
          to: from + 7200,
          interval: 'total',
        });
        expect(rep.body.status, JSON.stringify(rep.body)).toBe('success');
        const row = rep.body.data[0]!;
        // The service's counts are the model's: nothing lost, nothing counted twice (shutdown ends what was in progress).
        expect(row).toMatchObject({ dialled: s.dials, humanAnswered: s.human, machine: s.machine, busy: s.busy, connected: s.connected });
        expect(row.noAnswer).toBe(s.noAnswer);
        expect(row.abandoned).toBe(s.abandoned);
        if (mode === 'progressive') expect(s.abandoned).toBe(0);
      }, 120_000);
    }

    it('the command: --outbound with bad shares is a usage error', async () => {
      const r = await runCli(['simulate', '--outbound', '--human', '0.9', '--machine', '0.3'], {});
      expect(r.code).toBe(2);
      expect(r.output).toMatch(/--human \+ --machine \+ --busy must be at most 1/);
    });
    // The test ticks the dialer once per simulated second; the worker's own loop would tick it too, at real-time moments.
  },
  { config: { campaignDialer: false } },
);

describe('npm start + callcenter simulate --outbound --url', () => {
  it('a server process dials a predictive campaign, the command answers as the switch; the service counts what the simulator did', async () => {
    const t = await freshDatabase('sqlite');
    const p = await startServerProcess({ env: t.env });
    try {
      const w = await campaignWorld(p, 'sim-outbound-cli', { agents: 3, contacts: 300, dialRatio: 1, mode: 'predictive' });
      const api = await ok(p, '/api/v2/auth/token', { ssid: w.ssid });
      const args = ['--url', `http://127.0.0.1:${p.port}`, '--user-id', String(api.userId), '--token', String(api.token)];
      const child = spawn(process.execPath, ['bin/callcenter.js', 'simulate', '--outbound', ...args, '--speed', '10', '--seed', '3'], {
        env: { ...process.env, LOG_LEVEL: 'warn' },
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      // The campaign starts once the simulator reads the stream (a dial pushed before would reach no switch).
      await vi.waitFor(() => expect(out).toMatch(/answering campaign dials/), { timeout: 20_000, interval: 50 });
      const campaign = { ssid: w.ssid, campaignId: w.campaignId };
      await ok(p, '/api/v2/campaign/start', campaign);
      const status = async () => (await ok(p, '/api/v2/campaign/status', campaign)).data as { lines: number; window: { humanAnswered: number } };
      // Some people answered; then no new dials, and the simulator ends every call in progress on its own.
      await vi.waitFor(async () => expect((await status()).window.humanAnswered).toBeGreaterThanOrEqual(3), { timeout: 60_000, interval: 200 });
      await ok(p, '/api/v2/campaign/pause', campaign);
      await vi.waitFor(async () => expect((await status()).lines).toBe(0), { timeout: 60_000, interval: 200 });
      child.kill('SIGINT');
      expect(await exited, out).toBe(0);
      const summary = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number> & { human: number; machine: number };
      expect(summary.errors, out).toBe(0);
      expect(summary.dials).toBeGreaterThan(5);
      expect(summary.commands).toBe(summary.dials);
      const from = Math.floor(Date.now() / 1000) - 3600;
      const rep = await ok(p, '/api/v2/report/campaign', { ssid: w.ssid, campaignId: w.campaignId, from, to: from + 7200, interval: 'total' });
      const row = (rep.data as Array<Record<string, number>>)[0]!;
      // Without AMD (the campaign's default) the switch cannot tell a machine: it is counted as a person.
      expect(row).toMatchObject({ dialled: summary.dials, humanAnswered: summary.human + summary.machine, busy: summary.busy, noAnswer: summary.noAnswer });
    } finally {
      await p.kill();
      await t.db.close();
      await t.drop();
    }
  }, 90_000);
});
