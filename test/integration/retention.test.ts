import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { tryLock } from '../../src/db/locks.js';
import { AccountService } from '../../src/modules/account/account.service.js';
import { RETENTION_LOCK, RetentionJob } from '../../src/modules/retention/retention-job.js';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { runCli } from '../helpers/cli.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { ev } from './events.fixtures.js';

const DAY = 86_400;
/** "Now" of these tests: 2026-11-24 00:00 UTC. */
const NOW = Date.UTC(2026, 10, 24) / 1000;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** `n` calls on the day `daysAgo` days before NOW (UTC 09:00 on), each offered twice, the odd ones answered and recorded. */
async function callsOn(h: Harness, t: Creds & { accountId: number }, who: { g: number; a1: number; a2: number }, daysAgo: number, n: number) {
  const start = NOW - daysAgo * DAY + 9 * 3600;
  h.clock.set(start * 1000);
  const events: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const ts = start + i * 120;
    const callId = `d${daysAgo}-c${i}`;
    const at = (s: number, type: string, f: Record<string, unknown> = {}) => ev(h, type, { ts: ts + s, callId, ...f });
    events.push(
      at(0, 'call.queued', { groupId: who.g, did: '18005550100', caller: `9198000${String(daysAgo * 100 + i).padStart(5, '0')}` }),
      at(2, 'call.ringing', { agentId: who.a1 }),
      at(8, 'call.missed', { agentId: who.a1 }),
      at(8, 'call.ringing', { agentId: who.a2 }),
    );
    if (i % 2 === 1) {
      const rec = `a${t.accountId}/d${daysAgo}/${callId}.wav`;
      fs.mkdirSync(path.join(h.ctx.config.recordingsDir, path.dirname(rec)), { recursive: true });
      fs.writeFileSync(path.join(h.ctx.config.recordingsDir, rec), 'RIFF');
      events.push(
        at(12, 'call.answered', { agentId: who.a2 }),
        at(20, 'call.recording', { agentId: who.a2, path: rec }),
        at(60, 'call.ended', { reason: 'completed' }),
      );
    } else events.push(at(15, 'call.missed', { agentId: who.a2 }), at(30, 'call.ended', { reason: 'abandoned' }));
  }
  await ingestOk(h, t, events);
}

/** A tenant's long-lived token (sessions expire as these tests move the clock over weeks). */
type Creds = { userId: string; token: string };
async function tokenOf(h: Harness, t: Session): Promise<Creds> {
  const res = await h.post<Creds>('/api/v2/auth/token', { ssid: t.ssid, name: 'retention-test', kind: 'api' });
  return { userId: res.body.userId, token: res.body.token };
}

async function ingestOk(h: Harness, c: Creds, events: unknown[]) {
  const res = await h.post<{ data: { accepted: number; errors: unknown[] } }>('/api/v2/events/ingest', { ...c, events });
  expect(res.body.data?.errors, JSON.stringify(res.body).slice(0, 400)).toEqual([]);
  expect(res.body.data.accepted).toBe(events.length);
}

const count = async (h: Harness, table: string, accountId: number, where = 'TRUE') =>
  Number((await h.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = $1 AND ${where}`, [accountId]))!.n);

/** analysis/hits and report/* answers over the purged days and the whole history: compared whole, before and after. */
/** 50 days ago: a tenant with a group and two agents logged in; the clock stays there. */
async function loggedInPair(h: Harness) {
  h.clock.set((NOW - 50 * DAY) * 1000);
  const s = await createTenant(h);
  const g = await createGroup(h, s);
  const a1 = (await createAgent(h, s, { group: g })).agentId;
  const a2 = (await createAgent(h, s, { group: g })).agentId;
  const t = { ...(await tokenOf(h, s)), accountId: s.accountId };
  await ingestOk(h, t, [ev(h, 'agent.login', { agentId: a1 }), ev(h, 'agent.login', { agentId: a2 })]);
  return { s, t, g, a1, a2 };
}

async function aggregates(h: Harness, t: Creds) {
  const out: Record<string, unknown> = {};
  const bodies: Array<[string, Record<string, unknown>]> = [
    ['analysis/hits', { fields: 'TC,AC,MC,UC,CA,PM,CM,FR_UC,FR_CA,avgRingTime,avgHoldTime' }],
    ['analysis/hits', { breakDown: 'agentId', fields: 'TC,AC,MC,UC,CA,avgRingTime' }],
    ['analysis/hits', { breakDown: 'groupId', display: 'date', fields: 'TC,AC,UC,CA' }],
    ['analysis/hits', { breakDown: 'did', fields: 'TC,AC,UC' }],
    ['report/queue', { from: '10-10-2026', to: '11-23-2026', interval: 'day' }],
    ['report/queue', { from: '10-15-2026', to: '10-15-2026', interval: 'hour', format: 'csv' }],
    ['report/agent', { from: '10-10-2026', to: '11-23-2026', interval: 'day' }],
    ['report/agent', { from: '10-15-2026', to: '10-20-2026', interval: 'total' }],
  ];
  for (const [i, [op, body]] of bodies.entries()) {
    const res = await h.app.inject({ method: 'POST', url: `/api/v2/${op}`, payload: { ...t, ...body } });
    expect(res.body, op).not.toContain('"status":"error"');
    out[`${i} ${op}`] = res.body;
  }
  return out;
}

forEachDatabase(
  'retention',
  (use) => {
    it('removes calls, hits and recordings (rows and files) past the horizon, in batches; analysis and reports answer exactly as before', async () => {
      const h = use();
      const { t, g, a1, a2 } = await loggedInPair(h);
      for (const daysAgo of [40, 35, 20, 5]) await callsOn(h, t, { g, a1, a2 }, daysAgo, 12);
      h.clock.set(NOW * 1000);
      const before = await aggregates(h, t);
      // The purged days are in the answers: 12 calls offered on each of the four days.
      expect(String(before['4 report/queue']).match(/"offered":12/g)).toHaveLength(4);
      expect(await count(h, 'calls', t.accountId)).toBe(48);
      const ok = await h.post('/api/v2/account/updateSettings', { ...t, retention: { callDays: 30, recordingDays: 10 } });
      expect(ok.body.data).toMatchObject({ retention: { callDays: 30, recordingDays: 10, auditDays: null } });

      const run = await h.services.retention.runOnce();
      // 24 calls past 30 days (48 hits, 12 recordings), in batches of 10; the 20-day-old calls' recordings past 10 days.
      expect(run).toMatchObject({ ran: true, calls: 24, hits: 48, recordings: 18 });
      expect((run as { batches: number }).batches).toBeGreaterThan(5);
      expect(await count(h, 'calls', t.accountId, `queued_at < ${NOW - 30 * DAY}`)).toBe(0);
      expect(await count(h, 'calls', t.accountId)).toBe(24);
      expect(await count(h, 'call_hits', t.accountId)).toBe(48);
      expect(await count(h, 'call_legs', t.accountId, `call_id LIKE 'd40-%' OR call_id LIKE 'd35-%'`)).toBe(0);
      expect(await count(h, 'call_recordings', t.accountId)).toBe(6);
      const dir = path.join(h.ctx.config.recordingsDir, `a${t.accountId}`);
      expect(fs.readdirSync(dir).filter((d) => fs.readdirSync(path.join(dir, d)).length > 0)).toEqual(['d5']);
      // Past states of the agents: only the last one at or before the horizon stays, per agent.
      expect(await count(h, 'agent_state_log', t.accountId, `ts < ${NOW - 30 * DAY}`)).toBe(2);

      expect(await aggregates(h, t)).toEqual(before);
      // Nothing left to do: a second run removes nothing.
      expect(await h.services.retention.runOnce()).toMatchObject({ ran: true, calls: 0, hits: 0, recordings: 0, agentStates: 0 });
      // Recent calls are untouched and still reported.
      const recent = await h.post<{ data: unknown[] }>('/api/v2/CallReport/list', { ...t, from: '11-19-2026 00:00:00', limit: 100 });
      expect(recent.body.data).toHaveLength(12);
    });

    it('one node at a time: two jobs on one database, a held lock, a dead node’s lease', async () => {
      const h = use();
      const { t, g, a1, a2 } = await loggedInPair(h);
      await callsOn(h, t, { g, a1, a2 }, 45, 30);
      h.clock.set(NOW * 1000);
      await h.post('/api/v2/account/updateSettings', { ...t, retention: { callDays: 30 } });
      const other = h.testDb.connect();
      try {
        const mk = (db: typeof h.db) =>
          new RetentionJob({
            db,
            clock: h.clock,
            accounts: new AccountService({ db, clock: h.clock }),
            recordingsDir: h.ctx.config.recordingsDir,
            log: silent,
            audit: null,
            batchSize: 5,
          });
        const [x, y] = await Promise.all([mk(h.db).runOnce(), mk(other).runOnce()]);
        expect([x.ran, y.ran].sort()).toEqual([false, true]);
        expect((x.ran ? x : y) as { calls: number }).toMatchObject({ calls: 30 });
        expect(x.ran ? y : x).toEqual({ ran: false, reason: 'locked' });
        // Held by a live node elsewhere: skipped; the lock is released after a run.
        const owner = await tryLock(other, RETENTION_LOCK, 60_000, h.clock.now());
        expect(owner).not.toBeNull();
        expect(await mk(h.db).runOnce()).toEqual({ ran: false, reason: 'locked' });
        // That node died: once its lease lapses another takes the job over.
        h.clock.advance(61_000);
        expect(await mk(h.db).runOnce()).toMatchObject({ ran: true });
        expect(await h.db.get('SELECT owner FROM locks WHERE lock_key = $1', [RETENTION_LOCK])).toBeUndefined();
      } finally {
        await other.close();
      }
    });

    it('the setting: null keeps forever, integers ≥ 1, merged field by field; anything else 1000', async () => {
      const h = use();
      const t = await createTenant(h);
      const settings = async () => ((await h.post('/api/v2/account/getSettings', { ssid: t.ssid })).body.data as { retention: unknown }).retention;
      expect(await settings()).toEqual({ callDays: null, recordingDays: null, auditDays: null });
      const set = (retention: unknown) => h.post('/api/v2/account/updateSettings', { ssid: t.ssid, retention });
      expect((await set({ callDays: 365 })).body.data).toMatchObject({ retention: { callDays: 365, recordingDays: null, auditDays: null } });
      await set({ recordingDays: 90, auditDays: 730 });
      expect(await settings()).toEqual({ callDays: 365, recordingDays: 90, auditDays: 730 });
      await set({ callDays: null });
      expect(await settings()).toEqual({ callDays: null, recordingDays: 90, auditDays: 730 });
      for (const bad of [{ callDays: 0 }, { callDays: -1 }, { recordingDays: 1.5 }, { auditDays: '30' }, { callDays: true }, { days: 3 }, 30, null]) {
        const res = await set(bad);
        expect(res.body.code, JSON.stringify(bad)).toBe(1000);
      }
      expect(await settings()).toEqual({ callDays: null, recordingDays: 90, auditDays: 730 });
      // Other settings are left alone by a retention change, and the other way round.
      await h.post('/api/v2/account/updateSettings', { ssid: t.ssid, ghostThresholdSecs: 7 });
      expect(await settings()).toEqual({ callDays: null, recordingDays: 90, auditDays: 730 });
    });

    it('auditDays: records older than the horizon go, newer ones stay (the one deletion the append-only trail allows)', async () => {
      const h = use();
      const t = await createTenant(h);
      h.clock.set((NOW - 10 * DAY) * 1000);
      await createGroup(h, t, { name: 'Old change' });
      h.clock.set(NOW * 1000);
      await createGroup(h, t, { name: 'New change' });
      await h.post('/api/v2/account/updateSettings', { ssid: t.ssid, retention: { auditDays: 5 } });
      const ops = async () =>
        ((await h.post('/api/v2/audit/list', { ssid: t.ssid, limit: 1000 })).body.data as { operation: string; changes: Record<string, unknown> }[]).map(
          (r) => `${r.operation}${r.changes.name ? ` ${String((r.changes.name as unknown[])[1])}` : ''}`,
        );
      expect(await ops()).toEqual(['account/updateSettings', 'group/create New change', 'group/create Old change']);
      expect(await h.services.retention.runOnce()).toMatchObject({ ran: true, audit: 1 });
      expect(await ops()).toEqual(['account/updateSettings', 'group/create New change']);
    });

    it('callcenter retention run: one run now, as JSON', async () => {
      const h = use();
      const res = await runCli(['retention', 'run'], { ...h.testDb.env, RECORDINGS_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'rec-')) });
      expect(res.code, res.output).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ ran: true, calls: 0 });
    });
  },
  {
    config: {
      recordingsDir: fs.mkdtempSync(path.join(os.tmpdir(), 'callcenter-retention-')),
      retentionIntervalMinutes: 0,
      retentionBatch: 10,
      retentionPauseMs: 0,
    },
  },
);
