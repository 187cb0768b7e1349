import { afterAll, expect, it } from 'vitest';
import { createAgent, createDid, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { ALL_DAY, createCampaign, op, world } from './campaigns.fixtures.js';

afterAll(() => closeReaders());

forEachDatabase(
  'campaigns: create, update, list, delete, the state machine',
  (use) => {
    it('create fills the defaults of PRODUCT.md §13; list answers every setting; update merges', async () => {
      const h = use();
      const w = await world(h, { numbers: ['919800000101'] });
      const id = await createCampaign(h, w, { name: 'Renewals', mode: 'predictive', callingHours: undefined });
      const list = (await op(h, w.t, 'list')).data as Array<Record<string, unknown>>;
      expect(list).toEqual([
        {
          campaignId: id,
          name: 'Renewals',
          state: 'draft',
          mode: 'predictive',
          clIds: [w.clId],
          groupId: w.group,
          did: w.did,
          dialRatio: 1,
          maxAbandonRate: 3,
          abandonWindow: '30d',
          connectSecs: 2,
          callingHours: { start: '09:00', end: '21:00', weekDays: [1, 2, 3, 4, 5, 6, 7] },
          timezone: null,
          maxAttempts: 3,
          retryDelays: { noAnswer: 3600, busy: 900, failed: 3600, machine: 14400, abandoned: 259200 },
          ringSecs: 25,
          amd: false,
          machineAction: 'hangup',
          maxLines: 50,
          dispositions: [
            { code: 'sale', final: true },
            { code: 'not_interested', final: true },
            { code: 'callback', final: false },
            { code: 'wrong_number', final: true },
            { code: 'dnc', final: true },
          ],
          createdAt: expect.any(Number),
          startedAt: null,
        },
      ]);
      expect((await op(h, w.t, 'update', { campaignId: id, retryDelays: { busy: 60 }, callingHours: { end: '20:00' }, timezone: 'Asia/Kolkata' })).status).toBe(
        'success',
      );
      const [after] = (await op(h, w.t, 'list')).data as Array<Record<string, unknown>>;
      expect(after).toMatchObject({
        retryDelays: { noAnswer: 3600, busy: 60, failed: 3600, machine: 14400, abandoned: 259200 },
        callingHours: { start: '09:00', end: '20:00', weekDays: [1, 2, 3, 4, 5, 6, 7] },
        timezone: 'Asia/Kolkata',
      });
    });

    it('refuses an unknown group (1006), an unknown list or campaign (1012), a DID not the account’s (1000 naming did), settings out of range (1000 from the schema; an unknown zone 1001)', async () => {
      const h = use();
      const w = await world(h);
      const other = await createTenant(h);
      const foreign = await createDid(h, other);
      const base = { name: 'X', clIds: [w.clId], groupId: w.group, did: w.did, mode: 'progressive' };
      expect((await op(h, w.t, 'create', { ...base, groupId: 987654 })).code).toBe(1006);
      expect((await op(h, w.t, 'create', { ...base, clIds: [w.clId, 987654] })).code).toBe(1012);
      const didAnswer = await op(h, w.t, 'create', { ...base, did: foreign });
      expect(didAnswer.code).toBe(1000);
      expect(didAnswer.message).toContain('did');
      expect((await op(h, w.t, 'create', { ...base, ringSecs: 10 })).code).toBe(1000);
      expect((await op(h, w.t, 'create', { ...base, dialRatio: 4 })).code).toBe(1000);
      expect((await op(h, w.t, 'create', { ...base, mode: 'robocall' })).code).toBe(1000);
      expect((await op(h, w.t, 'create', { ...base, timezone: 'Mars/Olympus' })).code).toBe(1001);
      expect((await op(h, w.t, 'update', { campaignId: 987654, name: 'Y' })).code).toBe(1012);
      expect((await op(h, w.t, 'start', { campaignId: 987654 })).code).toBe(1012);
    });

    it('states: draft → running ⇄ paused → stopped; other moves are 1524; mode changes only while not running; delete only when not running or paused', async () => {
      const h = use();
      const w = await world(h);
      const id = await createCampaign(h, w);
      const move = async (name: string) => op(h, w.t, name, { campaignId: id });
      expect((await move('pause')).code).toBe(1524);
      expect((await move('start')).data).toEqual({ state: 'running' });
      expect((await move('start')).code).toBe(1524);
      expect((await op(h, w.t, 'update', { campaignId: id, mode: 'predictive' })).code).toBe(1524);
      // The same mode, or another setting, is fine while running.
      expect((await op(h, w.t, 'update', { campaignId: id, mode: 'progressive', maxLines: 10 })).status).toBe('success');
      expect((await move('delete')).code).toBe(1524);
      expect((await move('pause')).data).toEqual({ state: 'paused' });
      expect((await move('delete')).code).toBe(1524);
      expect((await op(h, w.t, 'update', { campaignId: id, mode: 'predictive' })).status).toBe('success');
      expect((await move('start')).data).toEqual({ state: 'running' });
      expect((await move('stop')).data).toEqual({ state: 'stopped' });
      expect((await move('start')).code).toBe(1524);
      expect((await move('pause')).code).toBe(1524);
      const [row] = (await op(h, w.t, 'list')).data as Array<Record<string, unknown>>;
      expect(row).toMatchObject({ state: 'stopped', mode: 'predictive', maxLines: 10, startedAt: expect.any(Number) });
      expect((await move('delete')).status).toBe('success');
      expect((await op(h, w.t, 'list')).data).toEqual([]);
      expect((await move('status')).code).toBe(1012);
    });

    it('contactList/delete is refused (1000 naming the campaign) while a campaign that is not stopped or completed dials the list', async () => {
      const h = use();
      const w = await world(h);
      const id = await createCampaign(h, w);
      const del = await h.post('/api/v2/contactList/delete', { ssid: w.t.ssid, clId: w.clId });
      expect(del.body.code).toBe(1000);
      expect(del.body.message).toContain(String(id));
      await op(h, w.t, 'stop', { campaignId: id });
      expect((await h.post('/api/v2/contactList/delete', { ssid: w.t.ssid, clId: w.clId })).body.status).toBe('success');
    });

    it('campaign.view reads, campaign.manage changes; without them 1015', async () => {
      const h = use();
      const w = await world(h);
      const id = await createCampaign(h, w);
      const viewer = await createAgent(h, w.t, { role: await createRole(h, w.t, { permissions: ['campaign.view'] }) });
      const s = await login(h, viewer.email, viewer.password);
      expect((await op(h, s, 'list')).status).toBe('success');
      expect((await op(h, s, 'status', { campaignId: id })).status).toBe('success');
      expect((await op(h, s, 'start', { campaignId: id })).code).toBe(1015);
      expect((await op(h, s, 'create', { name: 'X', clIds: [w.clId], groupId: w.group, did: w.did, mode: 'preview', callingHours: ALL_DAY })).code).toBe(1015);
      const nobody = await createAgent(h, w.t, { role: await createRole(h, w.t, { permissions: ['agent.view'] }) });
      expect((await op(h, await login(h, nobody.email, nobody.password), 'list')).code).toBe(1015);
    });
  },
  { config: { campaignDialer: false } },
);
