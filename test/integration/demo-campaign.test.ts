import { afterAll, expect, it, vi } from 'vitest';
import { LeadFeed } from '../../src/demo/campaign.js';
import { demoLeadNumber } from '../../src/demo/data.js';
import { startDemo } from '../../src/demo/start.js';
import { injectTransport } from '../../src/simulator/transport.js';
import { login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders } from '../helpers/sse.js';

afterAll(() => closeReaders());

type Status = {
  state: string;
  lines: number;
  contacts: { total: number; dialable: number };
  window: { humanAnswered: number; abandoned: number };
};
type Row = { dialled: number; humanAnswered: number; connected: number };

/**
 * CALLCENTER_DEMO=1's outbound side, booted in process as the server boots
 * it (startDemo, then startOutbound once the app listens): the outbound
 * team's switch reads the real stream and the campaign runs. The dialer is
 * ticked by hand after each simulated second (the worker's own tick, on the
 * harness's manual clock); the test waits for conditions, never for time.
 */
forEachDatabase(
  'the demo campaign',
  (use) => {
    async function ok<T>(h: Harness, op: string, body: Record<string, unknown>): Promise<T> {
      const res = await h.post<{ data: T }>(`/api/v2/${op}`, body);
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
      return res.body.data;
    }

    it('boots running: the outbound team answers its dials, people talk to agents; stop pauses it and logs the team out', async () => {
      const h = use();
      const demo = await startDemo(h.app, h.services.accounts, h.clock, h.app.log);
      const outbound = await demo.startOutbound(await baseUrl(h));
      const { ssid } = await login(h, 'demo', 'demo-password');
      const campaignId = outbound.campaignId;
      const status = () => ok<Status>(h, 'campaign/status', { ssid, campaignId });
      const from = Math.floor(h.clock.now() / 1000) - 60;
      const report = async () => (await ok<Row[]>(h, 'report/campaign', { ssid, campaignId, from, to: from + 86_400, interval: 'total' }))[0]!;
      expect(await status()).toMatchObject({ state: 'running', contacts: { total: 3000, dialable: 3000 } });
      // The outbound team is logged in by its own switch, not by the inbound simulator.
      const live = (await h.post<{ message: { lA: number } }>('/api/v2/Agent/live', { ssid, groupid: 59 })).body.message;
      expect(live.lA).toBe(8);

      const accountId = Number((await h.post<{ userId: string }>('/api/v2/auth/login', { username: 'demo', password: 'demo-password' })).body.userId);
      let row: Row = { dialled: 0, humanAnswered: 0, connected: 0 };
      for (let s = 0; s < 900 && !(row.dialled >= 16 && row.humanAnswered >= 2 && row.connected >= 2); s++) {
        h.clock.advance(1000);
        await h.services.dialerWorker.tick();
        // Every dial of this second reached the switch, and the switch reported everything up to now.
        const seq = await h.services.liveState.sequence(accountId);
        await vi.waitFor(() => expect(outbound.session.reader.lastEventId).toBeGreaterThanOrEqual(seq), { timeout: 5000, interval: 5 });
        row = await report();
      }
      expect(row.dialled).toBeGreaterThanOrEqual(16);
      expect(row.humanAnswered).toBeGreaterThanOrEqual(2);
      expect(row.connected).toBeGreaterThanOrEqual(2);
      const s = await status();
      expect(s.state).toBe('running');
      expect(s.window.humanAnswered).toBeGreaterThanOrEqual(2);
      expect(s.contacts.dialable).toBeLessThan(3000);
      expect(outbound.session.runner.progress.errors, outbound.session.runner.progress.lastError).toBe(0);
      expect(outbound.session.model.stats.connected).toBeGreaterThanOrEqual(2);

      await demo.stop();
      expect((await status()).state).toBe('paused');
      for (const groupid of [55, 56, 57, 58, 59])
        expect((await h.post<{ message: { lA: number } }>('/api/v2/Agent/live', { ssid, groupid })).body.message.lA).toBe(0);
      expect(outbound.session.runner.progress.errors, outbound.session.runner.progress.lastError).toBe(0);
      expect(demo.runner.progress.errors, demo.runner.progress.lastError).toBe(0);
    }, 180_000);

    it('the lead feed adds new numbers when the campaign is short of leads, none otherwise', async () => {
      const h = use();
      const { ssid } = await login(h, 'demo', 'demo-password');
      const api = injectTransport(h.app, { ssid });
      const [list] = await ok<Array<{ clId: number; contacts: number }>>(h, 'contactList/list', { ssid });
      const [campaign] = await ok<Array<{ campaignId: number }>>(h, 'campaign/list', { ssid });
      const dialable = async () => (await ok<Status>(h, 'campaign/status', { ssid, campaignId: campaign!.campaignId })).contacts.dialable;
      const before = await dialable();
      expect(list!.contacts).toBe(3000);
      expect(await new LeadFeed(api, list!.clId, campaign!.campaignId, { low: before, batch: 50 }).topUp()).toBe(0);
      expect(await new LeadFeed(api, list!.clId, campaign!.campaignId, { low: before + 1, batch: 50 }).topUp()).toBe(50);
      expect((await ok<Array<{ contacts: number }>>(h, 'contactList/list', { ssid }))[0]!.contacts).toBe(3050);
      expect(await dialable()).toBe(before + 50);
      // New numbers, following the list's: the 3,050th is there now, the 3,051st is not.
      const again = (i: number) => ok(h, 'contactList/import', { ssid, clId: list!.clId, records: [{ number: demoLeadNumber(i) }] });
      expect(await again(3049)).toMatchObject({ added: 0, updated: 1 });
      expect(await again(3050)).toMatchObject({ added: 1, updated: 0 });
    });
  },
  { config: { campaignDialer: false } },
);
