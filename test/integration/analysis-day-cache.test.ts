import { beforeAll, expect, it } from 'vitest';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { buildApp } from '../../src/app.js';
import { rebuildRollups } from '../../src/modules/analysis/rollup/rebuild.js';
import type { CallRecord } from '../../src/modules/calls/call-record.js';
import type { Database } from '../../src/db/types.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { D, call, callHistory, store } from './analysis.fixtures.js';

/**
 * Answers of whole past days are kept in memory per node (bucket-day-cache.ts).
 * Whatever changes a day — a late event on an old call, a call of that day
 * reported late, on this node or on another one sharing the database — the
 * very next answer must show it, and the kept answer must equal a fresh one.
 */
forEachDatabase('analysis/hits: answers of past days kept per node', (use) => {
  let h: Harness;
  let s: Session & { accountId: number };
  let other: { app: Awaited<ReturnType<typeof buildApp>>['app']; db: Database };
  let uncached: { app: Awaited<ReturnType<typeof buildApp>>['app']; db: Database };

  const days = (first: string, last: string) => ({ key: 'date', condi: 'range', val: `${first} 00:00:00,${last} 23:59:59` });
  const hourly = { breakDown: 'agentId', disPlay: 'hour', multi: true, filter: [days('01-10-2026', '01-12-2026')], fields: 'TC,AC,CA,PM,CM,FR_CAN_FR_PM_N' };
  const daily = { breakDown: 'groupId', disPlay: 'date', multi: true, filter: [days('01-10-2026', '01-12-2026')], fields: 'TC,AC,UC,CA' };
  const ask = async (app: { inject: Harness['app']['inject'] }, body: object) =>
    (await app.inject({ method: 'POST', url: '/api/v2/analysis/hits', payload: { ssid: s.ssid, ...body } })).json() as {
      code: number;
      data: Record<string, Record<string, Record<string, number>>>;
    };
  const inTx = (db: Database, fn: (tx: Database) => Promise<void>) => db.transaction(async (tx) => fn(tx as Database));

  beforeAll(async () => {
    h = use();
    s = await createTenant(h);
    // A second node on the same database, and a node that keeps nothing (ANALYSIS_CACHE_MB=0) to compare with.
    const db2 = h.testDb.connect();
    // The other nodes send no webhooks: on SQLite their delivery worker's writes, on connections of their own in
    // this one process, would wait (synchronously, up to the busy timeout) for a transaction of this test's
    // connection that cannot finish while the process waits.
    const quiet = { ...h.ctx.config, webhookDelivery: false };
    other = { app: (await buildApp({ config: quiet, db: db2, clock: h.clock })).app, db: db2 };
    const db3 = h.testDb.connect();
    uncached = { app: (await buildApp({ config: { ...quiet, analysisCacheBytes: 0 }, db: db3, clock: h.clock })).app, db: db3 };
    await Promise.all([other.app.ready(), uncached.app.ready()]);
    await store(
      h,
      call(s.accountId, 'a', D + 9 * 3600, { offers: [{ agent: 101, ring: 5, answered: true }] }),
      call(s.accountId, 'b', D + 86400 + 10 * 3600, {
        offers: [
          { agent: 101, ring: 5 },
          { agent: 102, ring: 3, answered: true },
        ],
      }),
      call(s.accountId, 'c', D + 2 * 86400 + 11 * 3600, { groupId: 56, offers: [{ agent: 103, ring: 7 }] }),
    );
    return async () => {
      await Promise.all([other.app.close(), uncached.app.close()]);
      await Promise.all([other.db.close(), uncached.db.close()]);
    };
  });

  it('answers a repeated question as a node keeping nothing does', async () => {
    for (const body of [hourly, daily]) {
      const first = await ask(h.app, body);
      expect(first.code).toBe(200);
      expect(await ask(h.app, body)).toEqual(first);
      expect(await ask(uncached.app, body)).toEqual(first);
    }
    expect((await ask(h.app, hourly)).data['101']).toEqual({
      '2026-01-10 09:00': { TC: 1, AC: 1, CA: 1, PM: 0, CM: 0, FR_CAN_FR_PM_N: 0 },
      '2026-01-11 10:00': { TC: 1, AC: 0, CA: 0, PM: 1, CM: 0, FR_CAN_FR_PM_N: 0 },
    });
  });

  it('shows a late event on an old call at once, on the node that kept the day', async () => {
    const before = await ask(h.app, hourly);
    expect(before.data['103']!['2026-01-12 11:00']).toMatchObject({ TC: 1, AC: 0, CM: 1 });
    const old = call(s.accountId, 'c', D + 2 * 86400 + 11 * 3600, { groupId: 56, offers: [{ agent: 103, ring: 7 }] });
    const next = call(s.accountId, 'c', D + 2 * 86400 + 11 * 3600, { groupId: 56, offers: [{ agent: 103, ring: 7, answered: true }] });
    await inTx(h.db, (tx) => callHistory(tx).replace(tx, old.accountId, old, next));
    expect((await ask(h.app, hourly)).data['103']!['2026-01-12 11:00']).toMatchObject({ TC: 1, AC: 1, CA: 1, CM: 0 });
    expect((await ask(h.app, daily)).data['56']!['2026-01-12']).toMatchObject({ AC: 1, CA: 1 });
    expect(await ask(h.app, hourly)).toEqual(await ask(uncached.app, hourly));
  });

  it('shows a change made on another node at once (a call of an old day reported late, and its retry)', async () => {
    await ask(h.app, hourly);
    await ask(h.app, daily);
    const late: CallRecord = call(s.accountId, 'd', D + 3600, { offers: [{ agent: 104, ring: 2 }] });
    const retry: CallRecord = call(s.accountId, 'e', D + 86400 + 3600, { retryOf: 'd', offers: [{ agent: 102, ring: 2, answered: true }] });
    await inTx(other.db, async (tx) => {
      await callHistory(tx).record(tx, late.accountId, [late]);
      await callHistory(tx).record(tx, retry.accountId, [retry]);
    });
    const after = await ask(h.app, hourly);
    expect(after.data['104']).toEqual({ '2026-01-10 01:00': { TC: 1, AC: 0, CA: 0, PM: 0, CM: 1, FR_CAN_FR_PM_N: 1 } });
    expect(after.data['102']!['2026-01-11 01:00']).toMatchObject({ TC: 1, AC: 1 });
    expect((await ask(h.app, daily)).data['55']!['2026-01-10']).toMatchObject({ TC: 2, UC: 2 });
    expect(after).toEqual(await ask(uncached.app, hourly));
    expect(after).toEqual(await ask(other.app, hourly));
  });

  it('keeps a range cut inside days exact (the cut days are computed, not kept)', async () => {
    const body = { ...hourly, filter: [{ key: 'date', condi: 'range', val: '01-10-2026 05:00:00,01-12-2026 10:59:59' }] };
    const first = await ask(h.app, body);
    expect(Object.keys(first.data['101']!)).toEqual(['2026-01-10 09:00', '2026-01-11 10:00']);
    expect(first.data['103']).toBeUndefined(); // its call is at 11:00 on the 12th, past the end
    expect(await ask(h.app, body)).toEqual(await ask(uncached.app, body));
  });

  it('sends a large answer (over 256 kB, written in pieces) whole, with its headers, equal to a fresh one', async () => {
    const t = await createTenant(h);
    const records: CallRecord[] = [];
    for (let agent = 1; agent <= 40; agent++) {
      for (let hour = 0; hour < 48; hour++)
        records.push(
          call(t.accountId, `big-${agent}-${hour}`, D + 10 * 86400 + hour * 3600 + agent, { offers: [{ agent, ring: 3, answered: hour % 2 === 0 }] }),
        );
    }
    await inTx(h.db, async (tx) => {
      for (const r of records) await callHistory(tx).record(tx, r.accountId, [r]);
    });
    const body = { ssid: t.ssid, breakDown: 'agentId', disPlay: 'hour', multi: true, filter: [days('01-20-2026', '01-21-2026')] };
    const ask2 = (app: { inject: Harness['app']['inject'] }) =>
      app.inject({ method: 'POST', url: '/api/v2/analysis/hits', payload: body, headers: { origin: 'https://crm.example' } });
    for (let round = 0; round < 2; round++) {
      const res = await ask2(h.app);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.length).toBeGreaterThan(256 * 1024);
      // Checked against its schema as it is sent (the harness), it leaves as on a deployed node: chunked, without a length.
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['access-control-allow-origin']).toBe('https://crm.example');
      const answer = res.json() as { status: string; code: number; data: Record<string, Record<string, { TC: number; AC: number }>> };
      expect(answer.status).toBe('success');
      expect(Object.keys(answer.data)).toHaveLength(40);
      expect(Object.keys(answer.data['7']!)).toHaveLength(48);
      expect(answer.data['7']!['2026-01-21 01:00']).toMatchObject({ TC: 1, AC: 0 });
      expect(answer).toEqual((await ask2(uncached.app)).json());
    }
    // A node that does not check its answers against the schema (as deployed) sends the hours the same way:
    // chunked, without a length, compressed when asked; the same answer.
    const fresh = (await ask2(uncached.app)).json() as unknown;
    for (const encoding of [undefined, 'gzip', 'br']) {
      for (let round = 0; round < 2; round++) {
        const res = await other.app.inject({
          method: 'POST',
          url: '/api/v2/analysis/hits',
          payload: body,
          headers: { origin: 'https://crm.example', ...(encoding ? { 'accept-encoding': encoding } : {}) },
        });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-length']).toBeUndefined();
        expect(res.headers['transfer-encoding']).toBe('chunked');
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.headers['access-control-allow-origin']).toBe('https://crm.example');
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(res.headers.vary).toMatch(/accept-encoding/i);
        const text = encoding === 'br' ? brotliDecompressSync(res.rawPayload) : encoding ? gunzipSync(res.rawPayload) : res.rawPayload;
        expect(JSON.parse(text.toString('utf8'))).toEqual(fresh);
      }
    }
    // Over a real socket, read slowly: every chunk arrives intact although its buffer is written again once sent.
    const url = await other.app.listen({ port: 0, host: '127.0.0.1' });
    const parts: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = request(`${url}/api/v2/analysis/hits`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.on('data', (chunk: Buffer) => {
          parts.push(chunk);
          res.pause();
          setTimeout(() => res.resume(), 2);
        });
        res.on('end', resolve);
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
    expect(JSON.parse(Buffer.concat(parts).toString('utf8'))).toEqual(fresh);
  });

  it('answers a changed ghost threshold at once (the threshold is part of what a kept day depends on)', async () => {
    const t = await createTenant(h);
    await store(h, call(t.accountId, 'g1', D + 3600, { offers: [{ agent: 1, ring: 2, answered: true }], talkSecs: 5 }));
    const body = { ssid: t.ssid, breakDown: 'agentId', disPlay: 'date', multi: true, filter: [days('01-10-2026', '01-10-2026')], fields: 'GH_UC' };
    expect((await ask(h.app, body)).data['1']!['2026-01-10']).toEqual({ GH_UC: 0 }); // 5 s of talk > 3 s
    await h.post('/api/v2/account/updateSettings', { ssid: t.ssid, ghostThresholdSecs: 5 });
    expect((await ask(h.app, body)).data['1']!['2026-01-10']).toEqual({ GH_UC: 1 });
  });

  it('a roll-up rebuild makes every kept day of the account stale, days left empty and days without a mark included', async () => {
    const t = await createTenant(h);
    await store(
      h,
      call(t.accountId, 'r1', D + 3600, { offers: [{ agent: 1, ring: 2, answered: true }] }),
      call(t.accountId, 'r2', D + 86400 + 3600, { offers: [{ agent: 1, ring: 2, answered: true }] }),
    );
    // Roll-up rows written before migration 044 have no change marks.
    await h.db.run('DELETE FROM analysis_versions WHERE account_id = $1', [t.accountId]);
    const body = { ssid: t.ssid, breakDown: 'agentId', disPlay: 'hour', multi: true, filter: [days('01-10-2026', '01-11-2026')], fields: 'TC' };
    expect(Object.keys((await ask(h.app, body)).data['1']!)).toEqual(['2026-01-10 01:00', '2026-01-11 01:00']);
    // Roll-ups drifted from the calls (a call removed behind their back): the rebuild repairs them,
    // and its day is left without a call, so no flush of the rebuild touches it.
    await h.db.run('DELETE FROM call_hits WHERE account_id = $1 AND call_id = $2', [t.accountId, 'r1']);
    await h.db.run('DELETE FROM calls WHERE account_id = $1 AND call_id = $2', [t.accountId, 'r1']);
    await rebuildRollups(h.db, t.accountId);
    expect(Object.keys((await ask(h.app, body)).data['1']!)).toEqual(['2026-01-11 01:00']);
  });

  it('roll-up writers of one account running at once all commit (no deadlock on shared counters and marks)', async () => {
    const t = await createTenant(h);
    const calls = (tag: string, order: number[]) =>
      order.map((d) =>
        call(t.accountId, `${tag}-${d}`, D + d * 86400 + 3600, {
          offers: [
            { agent: 1 + (d % 2), ring: 2, answered: true },
            { agent: 3, ring: 1 },
          ],
        }),
      );
    // Each transaction stores calls of the same days and cells, half of them in the opposite order.
    const writers = Array.from({ length: 8 }, (_, i) =>
      // On PostgreSQL through two nodes' pools; SQLite is one writer per file (one connection here).
      inTx(i % 2 === 0 || h.dialect === 'sqlite' ? h.db : other.db, async (tx) => {
        for (const r of calls(`w${i}`, i % 2 === 0 ? [0, 1, 2, 3] : [3, 2, 1, 0])) await callHistory(tx).record(tx, r.accountId, [r]);
      }),
    );
    await Promise.all(writers);
    const body = { ssid: t.ssid, breakDown: 'agentId', disPlay: 'date', multi: true, filter: [days('01-10-2026', '01-13-2026')], fields: 'TC' };
    expect((await ask(h.app, body)).data['3']).toEqual({ '2026-01-10': { TC: 8 }, '2026-01-11': { TC: 8 }, '2026-01-12': { TC: 8 }, '2026-01-13': { TC: 8 } });
  });

  it('cuts local days right across a DST change and in a half-hour zone (kept answers equal fresh ones)', async () => {
    const spring = Date.UTC(2026, 2, 8, 5) / 1000; // 2026-03-08 00:00 in New York: a 23-hour day
    // [zone, local midnight of the middle day (UTC), the local midnight after the last day, displays]
    for (const [tz, start, end, displays] of [
      ['America/New_York', spring, spring + (23 + 24) * 3600, ['hour', 'date']],
      ['Asia/Kolkata', D - 5.5 * 3600, D - 5.5 * 3600 + 2 * 86400, ['date']],
    ] as const) {
      const t = await createTenant(h, { timezone: tz });
      const records: CallRecord[] = [];
      // A call every 50 minutes over the three local days.
      for (let at = start - 86400; at < end; at += 3000)
        records.push(call(t.accountId, `z${at}`, at, { offers: [{ agent: 1 + (at % 2), ring: 2, answered: true }] }));
      await inTx(h.db, async (tx) => {
        for (const r of records) await callHistory(tx).record(tx, r.accountId, [r]);
      });
      const local = (at: number) => {
        const p = Object.fromEntries(
          new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' })
            .formatToParts(new Date(at * 1000))
            .map((x) => [x.type, x.value]),
        );
        return `${p.month}-${p.day}-${p.year}`;
      };
      for (const disPlay of displays) {
        const body = { ssid: t.ssid, breakDown: 'agentId', disPlay, multi: true, filter: [days(local(start - 86400), local(start + 86400))] };
        const fresh = await ask(uncached.app, body);
        expect(fresh.code).toBe(200);
        const total = Object.values(fresh.data).reduce((n, buckets) => n + Object.values(buckets).reduce((m, c) => m + c.TC!, 0), 0);
        expect(total, `${tz} ${disPlay}`).toBe(records.length);
        expect(await ask(h.app, body)).toEqual(fresh);
        expect(await ask(h.app, body)).toEqual(fresh);
      }
    }
  });
});
