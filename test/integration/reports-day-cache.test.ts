import { beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/types.js';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { at, feed, report, utc } from './reports.fixtures.js';

/**
 * report/queue and report/agent by 15 minutes, hour or day keep the rows of
 * whole local days in memory per node (src/modules/report/answers/). Whatever
 * changes a day — an event on this node or on another one sharing the
 * database, a late event, a new group, break reasons of other days — the
 * very next answer shows it, and equals a node keeping nothing.
 */
forEachDatabase('reports: answers of whole days kept per node', (use) => {
  let h: Harness;
  let t: Session & { accountId: number };
  let g: number;
  let a: number;
  type Node = { app: Awaited<ReturnType<typeof buildApp>>['app']; db: Database };
  let other: Node;
  let uncached: Node;
  const D = utc(2026, 11, 2);
  const range = { from: D - 86400, to: D + 2 * 86400 - 1 };

  const ask = async (node: Node | Harness, op: string, body: Record<string, unknown>) => {
    const res = await node.app.inject({ method: 'POST', url: `/api/v2/report/${op}`, payload: { ssid: t.ssid, ...range, ...body } });
    const answer = res.json() as { status: string; data: Array<Record<string, unknown>> };
    expect(answer.status, res.body.slice(0, 300)).toBe('success');
    return answer.data;
  };
  const ingest = async (node: Node, events: Array<Record<string, unknown>>) => {
    const res = await node.app.inject({ method: 'POST', url: '/api/v2/events/ingest', payload: { ssid: t.ssid, events } });
    expect((res.json() as { data: { errors: unknown[] } }).data.errors).toEqual([]);
  };
  const row = (rows: Array<Record<string, unknown>>, key: string, id: number, start: number) => rows.find((r) => r[key] === id && r.start === start)!;

  beforeAll(async () => {
    h = use();
    t = await createTenant(h);
    g = await createGroup(h, t);
    a = (await createAgent(h, t, { group: g })).agentId;
    // A second node on the same database, and a node that keeps nothing (REPORT_CACHE_MB=0) to compare with.
    const db2 = h.testDb.connect();
    // The other nodes send no webhooks: on SQLite their delivery worker's writes, on connections of their own in
    // this one process, would wait (synchronously, up to the busy timeout) for a transaction of this test's
    // connection that cannot finish while the process waits.
    const quiet = { ...h.ctx.config, webhookDelivery: false };
    other = { app: (await buildApp({ config: quiet, db: db2, clock: h.clock })).app, db: db2 };
    const db3 = h.testDb.connect();
    uncached = { app: (await buildApp({ config: { ...quiet, reportCacheBytes: 0 }, db: db3, clock: h.clock })).app, db: db3 };
    await Promise.all([other.app.ready(), uncached.app.ready()]);
    await feed(h, t.ssid, [
      at(D - 86400 + 8 * 3600, 'agent.login', { agentId: a }),
      at(D - 86400 + 9 * 3600, 'agent.break.start', { agentId: a, reason: 'lunch' }),
      at(D - 86400 + 9 * 3600 + 600, 'agent.break.end', { agentId: a }),
      at(D - 86400 + 10 * 3600, 'call.queued', { callId: 'k1', groupId: g }),
      at(D - 86400 + 10 * 3600, 'call.ringing', { callId: 'k1', agentId: a }),
      at(D - 86400 + 10 * 3600 + 12, 'call.answered', { callId: 'k1', agentId: a }),
      at(D - 86400 + 10 * 3600 + 112, 'call.ended', { callId: 'k1', reason: 'completed' }),
      at(D + 9 * 3600, 'agent.break.start', { agentId: a, reason: 'coffee' }),
      at(D + 9 * 3600 + 300, 'agent.break.end', { agentId: a }),
      at(D + 10 * 3600, 'call.queued', { callId: 'k2', groupId: g }),
      at(D + 10 * 3600 + 30, 'call.ended', { callId: 'k2', reason: 'abandoned' }),
      at(D + 12 * 3600, 'agent.logout', { agentId: a }),
    ]);
    return async () => {
      await Promise.all([other.app.close(), uncached.app.close()]);
      await Promise.all([other.db.close(), uncached.db.close()]);
    };
  });

  it('sends a large report (over 256 kB) as it is written, chunked, equal to a node keeping nothing', async () => {
    await createGroup(h, t);
    const week = { from: D - 86400, to: D + 6 * 86400 - 1, interval: '15m' };
    const fresh = await uncached.app.inject({ method: 'POST', url: '/api/v2/report/queue', payload: { ssid: t.ssid, ...week } });
    expect(fresh.rawPayload.length).toBeGreaterThan(256 * 1024);
    for (let round = 0; round < 2; round++) {
      const res = await other.app.inject({ method: 'POST', url: '/api/v2/report/queue', payload: { ssid: t.ssid, ...week } });
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.json()).toEqual(fresh.json());
    }
  });

  it('answers a repeated question as a node keeping nothing does', async () => {
    for (const [op, interval] of [
      ['queue', 'hour'],
      ['queue', '15m'],
      ['queue', 'day'],
      ['agent', 'hour'],
      ['agent', 'day'],
    ] as const) {
      const first = await ask(h, op, { interval });
      expect(await ask(h, op, { interval })).toEqual(first);
      expect(await ask(uncached, op, { interval })).toEqual(first);
    }
    const days = await ask(h, 'queue', { interval: 'day', groupId: g });
    expect(days.map((r) => r.offered)).toEqual([1, 1, 0]);
  });

  it('a day kept on this node changes at once when another node ingests into it, late events included', async () => {
    const before = row(await ask(h, 'queue', { interval: 'hour' }), 'groupId', g, D - 86400 + 10 * 3600);
    expect(before).toMatchObject({ offered: 1, answered: 1 });
    expect(row(await ask(h, 'agent', { interval: 'day' }), 'agentId', a, D)).toMatchObject({ breakTime: 300 });
    // On the other node: a call of yesterday's 10:00 hour reported now (a late event), and another login with a break today.
    await ingest(other, [
      at(D - 86400 + 10 * 3600 + 60, 'call.queued', { callId: 'k3', groupId: g }),
      at(D - 86400 + 10 * 3600 + 70, 'call.ended', { callId: 'k3', reason: 'abandoned' }),
      at(D + 13 * 3600, 'agent.login', { agentId: a }),
      at(D + 13 * 3600, 'agent.break.start', { agentId: a, reason: 'coffee' }),
      at(D + 13 * 3600 + 120, 'agent.break.end', { agentId: a }),
      at(D + 14 * 3600, 'agent.logout', { agentId: a }),
    ]);
    expect(row(await ask(h, 'queue', { interval: 'hour' }), 'groupId', g, D - 86400 + 10 * 3600)).toMatchObject({ offered: 2, abandoned: 1 });
    expect(row(await ask(h, 'agent', { interval: 'day' }), 'agentId', a, D)).toMatchObject({ breakTime: 420, breaks: { coffee: 420, lunch: 0 } });
    for (const [op, interval] of [
      ['queue', 'hour'],
      ['agent', 'day'],
    ] as const) {
      expect(await ask(h, op, { interval })).toEqual(await ask(uncached, op, { interval }));
    }
  });

  it('every row names the break reasons of the whole range, whichever days were kept before', async () => {
    const today = { from: D, to: D + 86399, interval: 'day' };
    expect((await ask(h, 'agent', today)).find((r) => r.agentId === a)!.breaks).toEqual({ coffee: 420 });
    // Yesterday had lunch: today's row, kept with coffee only, now names lunch too.
    const both = await ask(h, 'agent', { interval: 'day' });
    expect(row(both, 'agentId', a, D).breaks).toEqual({ coffee: 420, lunch: 0 });
    expect(row(both, 'agentId', a, D - 86400).breaks).toEqual({ coffee: 0, lunch: 600 });
    expect((await ask(h, 'agent', today)).find((r) => r.agentId === a)!.breaks).toEqual({ coffee: 420 });
  });

  it('a group created after the days were kept has its empty rows; too many rows is still 1001', async () => {
    await ask(h, 'queue', { interval: 'hour' });
    const g2 = await createGroup(h, t);
    const rows = await ask(h, 'queue', { interval: 'hour' });
    expect(rows.filter((r) => r.groupId === g2)).toHaveLength(72);
    expect(row(rows, 'groupId', g2, D)).toMatchObject({ offered: 0, asa: null, serviceLevel: { '20': null } });
    expect(rows).toEqual(await ask(uncached, 'queue', { interval: 'hour' }));
    // 400 days of quarter hours (38,400 intervals) × 6 groups is more than 200,000 rows.
    for (let i = 0; i < 4; i++) await createGroup(h, t);
    const res = await h.post('/api/v2/report/queue', { ssid: t.ssid, from: D - 399 * 86400, to: D - 1, interval: '15m' });
    expect(res.body).toMatchObject({ status: 'error', code: 1001 });
  });
});

forEachDatabase('reports: answers of whole days in a half-hour zone', (use) => {
  it('Kolkata: a range cut inside local days at both ends answers as one read of it', async () => {
    const h = use();
    const t = await createTenant(h, { timezone: 'Asia/Kolkata' });
    const g = await createGroup(h, t);
    const a = (await createAgent(h, t, { group: g })).agentId;
    const M = utc(2026, 11, 2, 18, 30); // 2026-11-03 00:00 IST
    await feed(h, t.ssid, [
      at(M - 7200, 'agent.login', { agentId: a }),
      at(M - 3600, 'call.queued', { callId: 'i1', groupId: g }),
      at(M - 3590, 'call.ended', { callId: 'i1', reason: 'abandoned' }),
      at(M + 3600, 'call.queued', { callId: 'i2', groupId: g }),
      at(M + 3600, 'call.ringing', { callId: 'i2', agentId: a }),
      at(M + 3605, 'call.answered', { callId: 'i2', agentId: a }),
      at(M + 3705, 'call.ended', { callId: 'i2', reason: 'completed' }),
      at(M + 86400 + 600, 'agent.logout', { agentId: a }),
    ]);
    const body = { ssid: t.ssid, from: M - 86400 - 4 * 3600, to: M + 86400 + 5 * 3600 };
    for (const interval of ['15m', 'hour', 'day'] as const) {
      for (let ask = 0; ask < 2; ask++) {
        expect(await report(h, 'queue', { ...body, interval })).toEqual(await h.services.reports.queue(t.accountId, { ...body, interval }));
        expect(await report(h, 'agent', { ...body, interval })).toEqual(await h.services.reports.agent(t.accountId, { ...body, interval }));
      }
    }
    const days = await report(h, 'agent', { ...body, interval: 'day' });
    expect(days.map((r) => [r.start, r.loginTime])).toEqual([
      [M - 86400 - 4 * 3600, 0],
      [M - 86400, 7200],
      [M, 86400],
      [M + 86400, 600],
    ]);
  });
});
