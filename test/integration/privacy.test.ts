import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allOperations } from '../../src/modules/index.js';
import { createRole, createAgent } from '../helpers/admin.js';
import { createTenant, login, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, openSse } from '../helpers/sse.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { FORMATS, GIVEN, NUMBER, T0, recordingsDir, storeEverything } from './privacy.fixtures.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  closeReaders();
  await receiver.close();
});

/** Operations that change something: not read here (privacy/erase itself, logins, administration, ingest). */
const WRITES = new Set(
  [
    'auth/login',
    'auth/token',
    'auth/revokeToken',
    'auth/logout',
    'account/create',
    'account/updateSettings',
    'group/create',
    'group/update',
    'group/delete',
    'role/create',
    'role/update',
    'role/delete',
    'did/create',
    'did/delete',
    'Agent/create',
    'Agent/update',
    'Agent/delete',
    'Agent/setCad',
    'Agent/unsetCad',
    'Agent/updateAgentGroupMapping',
    'Directory/create',
    'Directory/update',
    'Directory/delete',
    'Directory/setSticky',
    'Directory/removeSticky',
    'Directory/setDnc',
    'Directory/Blacklist',
    'events/ingest',
    'queue/callTakeover',
    'call/originate',
    'webhook/create',
    'webhook/update',
    'webhook/delete',
    'webhook/verify',
    'webhook/redeliver',
    'privacy/erase',
    'Agent/setState',
    'contactList/create',
    'contactList/delete',
    'contactList/import',
    'AddContactApi/addContact',
    'AddContactApi/deleteContact',
    'campaign/create',
    'campaign/update',
    'campaign/delete',
    'campaign/start',
    'campaign/pause',
    'campaign/stop',
    'campaign/disposition',
    // Agent-only writes: preview takes the next contact for the agent.
    'campaign/preview',
    'campaign/previewDial',
    'campaign/previewSkip',
  ].map((p) => p.toLowerCase()),
);

const DAY = '11-20-2026';
const HITS = [
  { fields: 'TC,AC,MC,UC,CA,PM,CM,FR_UC,FR_CA,FR_CAN_FR_PM_N,avgRingTime,avgHoldTime' },
  { breakDown: 'groupId', fields: 'TC,AC,UC,CA,FR_CAN_FR_PM_N' },
  { breakDown: 'agentId', fields: 'TC,AC,MC,UC,CA' },
  { breakDown: 'did', fields: 'TC,AC,UC' },
  { filter: [{ key: 'date', condi: 'range', val: `${T0 - 3600},${T0 + 3600}` }], fields: 'TC,AC,UC,CA' },
];

/** A body for every operation that reads (a new read operation fails the completeness check until it is added here). */
function readBodies(f: { g: number; did: string; webhookId: number; clId: number; campaignId: number }): Record<string, Array<Record<string, unknown>>> {
  return {
    'account/getsettings': [{}],
    'auth/whoami': [{}],
    'agent/desk': [{}],
    'contactlist/list': [{}],
    'contactlist/contacts': [{ clId: f.clId, limit: 1000 }],
    'campaign/list': [{}],
    'campaign/status': [{ campaignId: f.campaignId }],
    'analysis/hits': HITS,
    'report/queue': [
      { from: DAY, to: DAY, interval: 'total' },
      { from: DAY, to: DAY, interval: 'hour', format: 'csv' },
    ],
    'report/agent': [
      { from: DAY, to: DAY, interval: 'total' },
      { from: DAY, to: DAY, interval: 'total', format: 'csv' },
    ],
    'report/campaign': [
      { from: DAY, to: DAY, interval: 'total' },
      { from: DAY, to: DAY, interval: 'hour', format: 'csv' },
    ],
    'report/abandoned': [
      { from: DAY, to: DAY },
      { from: DAY, to: DAY, format: 'csv' },
    ],
    'group/list': [{}],
    'role/list': [{}],
    'did/list': [{}],
    'agent/list': [{}],
    'directory/getinfo': [{ cn: NUMBER, field: 'all' }],
    'directory/getfields': [{ contact: NUMBER, project: 'name,email' }],
    'directory/search': [
      { contact: '9198765', project: 'name' },
      { contact: '91', project: 'name' },
    ],
    'directory/getsticky': [{ contact: NUMBER }],
    'directory/getdnc': [{ contact: NUMBER }],
    'agent/live': [{}, { groupid: f.g }],
    'queue/count': [{ window: 3600 }],
    'queue/list': [{ window: 3600, Modules: ['summary', 'calls', 'agent'] }],
    'switch/config': [{}],
    'switch/state': [{}],
    'callreport/list': [{ from: `${DAY} 00:00:00`, limit: 100 }],
    'callreport/detail': ['c1', 'c2', 'c3', 'c4'].map((clId) => ({ clId, rType: ['rcrd'] })),
    'webhook/list': [{}],
    'webhook/deliveries': [{ webhookId: f.webhookId, limit: 100 }],
    'privacy/export': [{ number: NUMBER }, { number: GIVEN }],
    'audit/list': [{ limit: 1000 }],
    'staffing/erlang': [{ offered: 100, intervalMinutes: 30, aht: 180, target: { serviceLevel: 80, seconds: 20 } }],
    'staffing/plan': [{ date: '11-23-2026', interval: '30m', target: { serviceLevel: 80, seconds: 20 } }],
  };
}

/** Whether a text holds the number in any of its formats. */
function holdsNumber(text: string): string | null {
  return [NUMBER, ...FORMATS].find((x) => text.includes(x)) ?? null;
}

async function snapshot(h: Harness, t: Session) {
  const out: Record<string, unknown> = {};
  for (const [i, body] of HITS.entries()) out[`hits${i}`] = (await h.post('/api/v2/analysis/hits', { ssid: t.ssid, ...body })).body;
  for (const r of ['queue', 'agent']) out[r] = (await h.post(`/api/v2/report/${r}`, { ssid: t.ssid, from: DAY, to: DAY, interval: 'hour' })).body;
  return out;
}

/** Every read body's answer as text (JSON answers: an error's message, which echoes the question, left out). */
async function readAll(
  h: Harness,
  t: Session,
  creds: { switch: Record<string, string>; agent: Record<string, string> },
  bodies: ReturnType<typeof readBodies>,
) {
  const out: Array<{ op: string; body: string; text: string }> = [];
  for (const [op, list] of Object.entries(bodies)) {
    for (const body of list) {
      const principal = op.startsWith('switch/') ? creds.switch : op === 'agent/desk' ? creds.agent : { ssid: t.ssid };
      const res = await h.app.inject({ method: 'POST', url: `/api/v2/${op}`, payload: { ...principal, ...body } });
      expect(res.statusCode, op).toBe(200);
      let text = res.body;
      if (res.headers['content-type']?.toString().startsWith('application/json')) {
        const answer = res.json<{ status: string; code: number; message?: string }>();
        // Asked about the number itself, a lookup answers "no data found", whose message echoes the question.
        if (answer.status === 'error') {
          expect(answer.code, `${op}: ${res.body}`).toBe(1012);
          delete answer.message;
        }
        text = JSON.stringify(answer);
      }
      out.push({ op, body: JSON.stringify(body), text });
    }
  }
  return out;
}

forEachDatabase(
  'privacy/erase leaves no trace; privacy/export; Directory/delete',
  (use) => {
    it('after an erasure no read operation, CSV export or stream answer holds the number; analysis and reports are unchanged', async () => {
      const h = use();
      const f = await storeEverything(h, receiver);
      const { t } = f;
      const before = await h.post<{ data: Record<string, unknown> }>('/api/v2/privacy/export', { ssid: t.ssid, number: GIVEN });
      expect(before.body.data).toMatchObject({ contact: { contact: NUMBER, name: 'Meera Iyer' }, dnc: { dnc: -1 }, blacklist: [f.did] });
      const calls = before.body.data.calls as Array<{ callId: string; kind: string; recordings: unknown[] }>;
      expect(calls.map((c) => [c.callId, c.kind, c.recordings.length])).toEqual([
        ['c1', 'finished', 1],
        ['c2', 'finished', 0],
        ['c4', 'live', 0],
      ]);
      expect(holdsNumber(JSON.stringify((await h.post('/api/v2/webhook/deliveries', { ssid: t.ssid, webhookId: f.webhookId })).body))).not.toBeNull();
      const aggregates = await snapshot(h, t);
      const tok = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, name: 'pbx', kind: 'switch' });
      const switchCreds = { userId: tok.body.userId, token: tok.body.token };
      const creds = { switch: switchCreds, agent: { ssid: (await login(h, f.a1.email, f.a1.password)).ssid } };
      const holding = new Set((await readAll(h, t, creds, readBodies(f))).filter((a) => holdsNumber(a.text)).map((a) => a.op));
      expect([...holding].sort()).toEqual(
        expect.arrayContaining([
          'callreport/detail',
          'callreport/list',
          'contactlist/contacts',
          'directory/getinfo',
          'directory/search',
          'privacy/export',
          'queue/list',
          'report/abandoned',
          'webhook/deliveries',
        ]),
      );

      const erased = await h.post('/api/v2/privacy/erase', { ssid: t.ssid, number: GIVEN });
      expect(erased.body).toEqual({ status: 'success', code: 200, data: { contact: 1, dnc: 1, sticky: 1, blacklist: 1, calls: 3, recordings: 1 } });
      expect(fs.existsSync(path.join(h.ctx.config.recordingsDir, f.rec))).toBe(false);
      // Nothing left: a second erasure finds nothing, the export is empty.
      const again = await h.post('/api/v2/privacy/erase', { ssid: t.ssid, number: NUMBER });
      expect(again.body.data).toEqual({ contact: 0, dnc: 0, sticky: 0, blacklist: 0, calls: 0, recordings: 0 });
      const after = await h.post('/api/v2/privacy/export', { ssid: t.ssid, number: NUMBER });
      expect(after.body.data).toEqual({ contact: null, dnc: null, sticky: [], blacklist: [], calls: [] });
      // The counts: every aggregate answers exactly as before.
      h.clock.advance(2000);
      expect(await snapshot(h, t)).toEqual(aggregates);

      // Every read operation registered: before the erasure these answers held the number, now none does.
      const bodies = readBodies(f);
      const registered = allOperations(h.services).map((o) => `${o.module}/${o.name}`.toLowerCase());
      expect(registered.filter((p) => !WRITES.has(p) && !(p in bodies) && p !== 'route/decide')).toEqual([]);
      let read = 0;
      for (const answer of await readAll(h, t, creds, bodies)) {
        expect(holdsNumber(answer.text), `${answer.op} ${answer.body}: ${answer.text.slice(0, 300)}`).toBeNull();
        read += 1;
      }
      expect(read).toBeGreaterThan(30);
      // route/decide is asked about the number itself: no longer blocked, no DNC, no sticky agent.
      const decide = await h.post('/api/v2/route/decide', { ...switchCreds, caller: NUMBER, did: f.did, groupId: f.g });
      expect(decide.body).toEqual({ status: 'success', code: 200, data: { blocked: false, dnc: 0 } });
      // The CSV export of call reports.
      const csv = await h.app.inject({ method: 'GET', url: `/api/v2/CallReport/export?ssid=${t.ssid}` });
      expect(csv.statusCode).toBe(200);
      expect(csv.body).toContain('c1');
      expect(holdsNumber(csv.body)).toBeNull();
      // The stream, replaying the whole change log from its start, up to a call queued after the erasure (the log's last change).
      const last = await h.post('/api/v2/events/ingest', {
        ssid: t.ssid,
        events: [{ eventId: 'after-erasure-q', type: 'call.queued', ts: Math.floor(h.clock.now() / 1000), callId: 'after-erasure', caller: '919800000077' }],
      });
      expect(last.body.data).toMatchObject({ accepted: 1 });
      const base = await baseUrl(h);
      const sse = await openSse(`${base}/api/v2/stream?ssid=${t.ssid}&lastEventId=0`);
      await sse.next((m) => m.event === 'call' && (m.data as { callId?: string }).callId === 'after-erasure');
      expect(sse.raw()).toContain('erased-');
      expect(holdsNumber(sse.raw())).toBeNull();
      sse.close();
    });

    it('the same number gets the same erased-<hash> within an account, another in another account', async () => {
      const h = use();
      const ids: string[] = [];
      for (const _ of [1, 2]) {
        const t = await createTenant(h);
        for (const callId of ['x1', 'x2']) {
          await h.post('/api/v2/events/ingest', { ssid: t.ssid, events: [{ eventId: `${callId}-q`, type: 'call.queued', ts: T0, callId, caller: NUMBER }] });
          await h.post('/api/v2/events/ingest', { ssid: t.ssid, events: [{ eventId: `${callId}-e`, type: 'call.ended', ts: T0 + 5, callId }] });
        }
        expect((await h.post('/api/v2/privacy/erase', { ssid: t.ssid, number: NUMBER })).body.data).toMatchObject({ calls: 2 });
        const rows = await h.db.all<{ caller: string }>('SELECT DISTINCT caller FROM calls WHERE account_id = $1', [t.accountId]);
        expect(rows).toHaveLength(1);
        expect(rows[0]!.caller).toMatch(/^erased-[0-9a-f]{16}$/);
        ids.push(rows[0]!.caller);
      }
      expect(ids[0]).not.toBe(ids[1]);
    });

    it('privacy/erase and privacy/export need privacy.manage; a bad number is 1005', async () => {
      const h = use();
      const t = await createTenant(h);
      const without = await createRole(h, t, { permissions: ['directory.manage', 'dnc.manage', 'analysis.view'] });
      const withIt = await createRole(h, t, { permissions: ['privacy.manage'] });
      const a = await createAgent(h, t, { role: without });
      const b = await createAgent(h, t, { role: withIt });
      const sa = await login(h, a.email, a.password);
      const sb = await login(h, b.email, b.password);
      for (const op of ['erase', 'export']) {
        expect((await h.post(`/api/v2/privacy/${op}`, { ssid: sa.ssid, number: NUMBER })).body.code).toBe(1015);
        expect((await h.post(`/api/v2/privacy/${op}`, { ssid: sb.ssid, number: NUMBER })).body.status).toBe('success');
        expect((await h.post(`/api/v2/privacy/${op}`, { ssid: sb.ssid, number: '12-34' })).body.code).toBe(1005);
      }
    });

    it('Directory/delete removes the entry only (1012 when none), with directory.manage', async () => {
      const h = use();
      const t = await createTenant(h);
      await h.post('/api/v2/Directory/create', { ssid: t.ssid, contact: GIVEN, contactinfo: { name: 'Meera' } });
      await h.post('/api/v2/Directory/setDnc', { ssid: t.ssid, contact: NUMBER, dnc: -1 });
      const del = await h.post('/api/v2/Directory/delete', { ssid: t.ssid, contact: GIVEN });
      expect(del.body).toEqual({ status: 'success', code: 200, message: 'Contact deleted', data: { contact: NUMBER } });
      expect((await h.post('/api/v2/Directory/getInfo', { ssid: t.ssid, cn: NUMBER })).body.code).toBe(1012);
      expect((await h.post('/api/v2/Directory/delete', { ssid: t.ssid, contact: NUMBER })).body.code).toBe(1012);
      expect((await h.post('/api/v2/Directory/getDnc', { ssid: t.ssid, contact: NUMBER })).body).toMatchObject({ status: 'success' });
      expect((await h.post('/api/v2/Directory/delete', { ssid: t.ssid, contact: '12' })).body.code).toBe(1005);
      const viewer = await createRole(h, t, { permissions: ['directory.view'] });
      const a = await createAgent(h, t, { role: viewer });
      const s = await login(h, a.email, a.password);
      await h.post('/api/v2/Directory/create', { ssid: t.ssid, contact: NUMBER });
      expect((await h.post('/api/v2/Directory/delete', { ssid: s.ssid, contact: NUMBER })).body.code).toBe(1015);
    });
  },
  { config: { webhookAllowPrivate: true, recordingsDir: recordingsDir(), retentionIntervalMinutes: 0 } },
);
