import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { endCall, freshNumbers, noAnswer, ok, op, progressiveAnswered, started, tickAndRead, world, type World } from './campaigns.fixtures.js';

afterAll(() => closeReaders());

const DAY = 86_400;

/** The world's tenant logs in again (sessions last 12 hours; these tests move the clock by days). */
async function relogin(h: Harness, w: World): Promise<void> {
  const t = w.t as World['t'] & { username: string; password: string };
  w.t.ssid = (await login(h, t.username, t.password)).ssid;
}

/** A progressive call to the world's next contact: answered by the agent and the person, ended, disposed of with notes. */
async function completedCall(h: Harness, w: World, notes: string): Promise<string> {
  const [call] = await tickAndRead(h, w);
  expect(call, 'a dial').toBeDefined();
  await progressiveAnswered(h, w, call!);
  await endCall(h, w, String(call!.callId));
  expect((await op(h, w.t, 'disposition', { callId: call!.callId, disposition: 'sale', notes })).status).toBe('success');
  return String(call!.callId);
}

forEachDatabase(
  'campaign dials: retention, export and erasure',
  (use) => {
    it('past callDays a dial loses its number and notes and stays as a count: report/campaign, queue/count and campaign/status answer as before', async () => {
      const h = use();
      const nums = freshNumbers(2, 919800300000);
      const w = await world(h, { agents: 1, numbers: nums });
      const id = await started(h, w);
      const from = Math.floor(h.clock.now() / 1000 / DAY) * DAY;
      const oldCall = await completedCall(h, w, 'Asked about the offer; call back Monday');
      h.clock.advance(3 * DAY * 1000);
      await relogin(h, w);
      const newCall = await completedCall(h, w, 'Bought the yearly plan');
      h.clock.advance(DAY * 1000);
      await relogin(h, w);
      const answers = async () => ({
        report: (await h.post('/api/v2/report/campaign', { ssid: w.t.ssid, from, to: from + 5 * DAY - 1, interval: 'day' })).body,
        csv: (
          await h.app.inject({
            method: 'POST',
            url: '/api/v2/report/campaign',
            payload: { ssid: w.t.ssid, from, to: from + 5 * DAY - 1, interval: 'total', format: 'csv' },
          })
        ).body,
        status: (await op(h, w.t, 'status', { campaignId: id })).data,
      });
      const before = await answers();
      expect(JSON.stringify(before.report)).toContain('"dialled":1');
      const dial = (callId: string) =>
        h.db.get<{ number: string; notes: string | null; disposition: string }>(
          'SELECT number, notes, disposition FROM campaign_calls WHERE account_id = $1 AND call_id = $2',
          [w.t.accountId, callId],
        );

      await ok(h, '/api/v2/account/updateSettings', { ssid: w.t.ssid, retention: { callDays: 2 } });
      expect(await h.services.retention.runOnce()).toMatchObject({ ran: true, campaignDials: 1 });
      // The dial four days old: nothing names the person; its outcome and disposition stay.
      expect(await dial(oldCall)).toEqual({ number: '', notes: null, disposition: 'sale' });
      // The dial a day old is untouched.
      expect(await dial(newCall)).toEqual({ number: nums[1], notes: 'Bought the yearly plan', disposition: 'sale' });
      expect(await answers()).toEqual(before);
      // Nothing is left to expire.
      expect(await h.services.retention.runOnce()).toMatchObject({ ran: true, campaignDials: 0 });
      // Without a horizon nothing is expired.
      await ok(h, '/api/v2/account/updateSettings', { ssid: w.t.ssid, retention: { callDays: null } });
      h.clock.advance(30 * DAY * 1000);
      expect(await h.services.retention.runOnce()).toMatchObject({ ran: true, campaignDials: 0 });
      expect((await dial(newCall))!.number).toBe(nums[1]);
    });

    it("privacy/export lists the number's dials with their notes; privacy/erase removes the notes too, the dials stay numbered by the erasure key", async () => {
      const h = use();
      const nums = freshNumbers(1, 919800400000);
      const w = await world(h, { agents: 1, numbers: nums });
      await started(h, w);
      // A first attempt nobody answers (never queued: no call history), then, after the retry delay, one the person answers.
      const [first] = await tickAndRead(h, w);
      await noAnswer(h, w, String(first!.callId));
      h.clock.advance(3601 * 1000);
      const callId = await completedCall(h, w, 'Spoke with Mrs Example at her home number');
      const exported = async () =>
        (await h.post<{ data: { calls: Array<Record<string, unknown>> } }>('/api/v2/privacy/export', { ssid: w.t.ssid, number: nums[0] })).body.data.calls;
      const calls = await exported();
      const dialOf = (id: string) => {
        const c = calls.find((x) => x.callId === id);
        return (c?.kind === 'campaign' ? c : c?.campaign) as Record<string, unknown> | undefined;
      };
      expect(dialOf(String(first!.callId))).toMatchObject({ outcome: 'no_answer', attempt: 1 });
      expect(calls.find((x) => x.callId === callId)).toMatchObject({ kind: 'finished' });
      expect(dialOf(callId)).toMatchObject({ disposition: 'sale', notes: 'Spoke with Mrs Example at her home number', attempt: 2 });
      await ok(h, '/api/v2/privacy/erase', { ssid: w.t.ssid, number: nums[0] });
      expect(await exported()).toEqual([]);
      const row = await h.db.get<{ number: string; notes: string | null; disposition: string }>(
        'SELECT number, notes, disposition FROM campaign_calls WHERE account_id = $1 AND call_id = $2',
        [w.t.accountId, callId],
      );
      expect(row).toMatchObject({ notes: null, disposition: 'sale' });
      expect(row!.number).toMatch(/^erased-/);
    });
  },
  {
    config: {
      recordingsDir: fs.mkdtempSync(path.join(os.tmpdir(), 'callcenter-campaign-retention-')),
      retentionIntervalMinutes: 0,
      retentionBatch: 10,
      retentionPauseMs: 0,
    },
  },
);
