import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/types.js';
import type { CallRecord } from '../../src/modules/calls/call-record.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { D, callHistory, replace, store } from './analysis.fixtures.js';

/**
 * Property: whatever the calls, their arrival order, late versions and the
 * query, analysis/hits answers exactly what a brute-force count over the
 * final records gives (roll-up, cube and raw paths alike), however it is
 * asked: cold (nothing kept), warm (the same question again, from what the
 * node kept), after a late event changed the calls (kept answers must not
 * outlive it), and from a second node on the same database (its own caches,
 * the same change marks).
 */
const AGENTS = [1, 2, 3, 4];
const ZONES = ['UTC', 'Asia/Kolkata', 'America/New_York'];

const hitArb = fc.record({ agentId: fc.constantFrom(...AGENTS), ringSecs: fc.integer({ min: 0, max: 30 }), answered: fc.boolean() });
const callArb = fc.record({
  offset: fc.integer({ min: 0, max: 3 * 86400 - 1 }),
  groupId: fc.constantFrom(1, 2, null),
  did: fc.constantFrom('d1', 'd2', null),
  campaignId: fc.constantFrom('k1', 'k2', null),
  direction: fc.constantFrom('inbound' as const, 'outbound' as const),
  retryIx: fc.option(fc.nat(20), { nil: null }),
  hits: fc.array(hitArb, { maxLength: 3 }),
  answeredWithoutHit: fc.boolean(),
  talkSecs: fc.constantFrom(0, 1, 2.5, 3, 4, 10, 15, 60),
  holdSecs: fc.integer({ min: 0, max: 40 }),
  late: fc.boolean(),
});
const queryArb = fc.record({
  breakDown: fc.constantFrom('agentId', 'groupId', 'did', 'campaignId'),
  disPlay: fc.constantFrom('date', 'hour', 'month', 'total'),
  multi: fc.boolean(),
  range: fc.constantFrom('days', 'hours', 'seconds', 'none', 'any', 'any'),
  // 'any': starts and ends at arbitrary seconds (an hour before the calls to after them), at least one second long.
  at: fc.tuple(fc.integer({ min: -3600, max: 3 * 86400 }), fc.integer({ min: 1, max: 3 * 86400 })),
  filters: fc.array(
    fc.oneof(
      fc.record({
        key: fc.constant('agentId'),
        condi: fc.constantFrom('eq', 'ne', 'in'),
        val: fc.subarray(AGENTS.map(String), { minLength: 1, maxLength: 2 }),
      }),
      fc.record({ key: fc.constant('groupId'), condi: fc.constantFrom('eq', 'ne', 'in'), val: fc.subarray(['1', '2'], { minLength: 1, maxLength: 2 }) }),
      fc.record({ key: fc.constant('did'), condi: fc.constantFrom('eq', 'ne', 'in'), val: fc.subarray(['d1', 'd2'], { minLength: 1, maxLength: 2 }) }),
      fc.record({ key: fc.constant('campaignId'), condi: fc.constantFrom('eq', 'ne'), val: fc.subarray(['k1', 'k2'], { minLength: 1, maxLength: 1 }) }),
      fc.record({
        key: fc.constant('direction'),
        condi: fc.constantFrom('eq', 'ne'),
        val: fc.subarray(['inbound', 'outbound'], { minLength: 1, maxLength: 1 }),
      }),
    ),
    { maxLength: 2 },
  ),
});

type CallSpec = typeof callArb extends fc.Arbitrary<infer T> ? T : never;
type QuerySpec = typeof queryArb extends fc.Arbitrary<infer T> ? T : never;

function toRecords(accountId: number, specs: CallSpec[]): { final: CallRecord; early: CallRecord | null }[] {
  return specs.map((s, i) => {
    const hits = s.hits.map((h, seq) => ({ seq, agentId: h.agentId, ringAt: D + s.offset + seq, ringSecs: h.ringSecs, answered: h.answered }));
    const answered = hits.some((h) => h.answered) || s.answeredWithoutHit;
    const retryOf = s.retryIx !== null && s.retryIx !== i && s.retryIx < specs.length ? `p${s.retryIx}` : null;
    const final: CallRecord = {
      accountId,
      callId: `p${i}`,
      queuedAt: D + s.offset,
      endedAt: D + s.offset + 100,
      groupId: s.groupId,
      did: s.did,
      campaignId: s.campaignId,
      direction: s.direction,
      caller: null,
      retryOf,
      answeredBy: answered ? 1 : null,
      answeredAt: answered ? D + s.offset + 5 : null,
      talkSecs: answered ? s.talkSecs : 0,
      holdSecs: answered ? s.holdSecs : 0,
      waitSecs: 5,
      outcome: answered ? 'completed' : 'abandoned',
      hits,
    };
    // An earlier version: still unanswered, fewer offers (then a late event completes it).
    const early: CallRecord | null = s.late
      ? { ...final, hits: hits.slice(0, 1).map((h) => ({ ...h, answered: false })), answeredAt: null, answeredBy: null, talkSecs: 0, holdSecs: 0 }
      : null;
    return { final, early };
  });
}

const fmt = new Map<string, Intl.DateTimeFormat>();
function label(tz: string, at: number, disPlay: string): string {
  let f = fmt.get(tz);
  if (!f)
    fmt.set(tz, (f = new Intl.DateTimeFormat('en-CA', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit' })));
  const p = Object.fromEntries(f.formatToParts(new Date(at * 1000)).map((x) => [x.type, x.value]));
  return disPlay === 'date' ? `${p.year}-${p.month}-${p.day}` : disPlay === 'month' ? `${p.year}-${p.month}` : `${p.year}-${p.month}-${p.day} ${p.hour}:00`;
}

/** The counters computed the slow way from the final records. */
function bruteForce(calls: CallRecord[], q: QuerySpec, range: [number, number] | null, tz: string, ghost: number): Record<string, unknown> | null {
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const answeredRetry = new Set(calls.filter((c) => c.retryOf && c.answeredAt !== null).map((c) => c.retryOf));
  const cells = new Map<string, Map<string, { hits: CallRecord['hits']; call: CallRecord }[]>>();
  const matches = (v: string | null, f: QuerySpec['filters'][number]) =>
    f.condi === 'ne' ? v === null || !f.val.includes(v) : v !== null && f.val.includes(v);
  for (const c of calls) {
    if (range && (c.queuedAt < range[0] || c.queuedAt >= range[1])) continue;
    const attr = { groupId: c.groupId === null ? null : String(c.groupId), did: c.did, campaignId: c.campaignId, direction: c.direction } as Record<
      string,
      string | null
    >;
    if (!q.filters.every((f) => f.key === 'agentId' || matches(attr[f.key]!, f))) continue;
    const hits = c.hits.filter((h) => q.filters.every((f) => f.key !== 'agentId' || matches(String(h.agentId), f)));
    const groups = new Map<string, CallRecord['hits']>();
    for (const h of hits) {
      const k = q.breakDown === 'agentId' ? String(h.agentId) : attr[q.breakDown];
      if (k === null || k === undefined) continue;
      groups.set(k, [...(groups.get(k) ?? []), h]);
    }
    const bucket = q.multi && q.disPlay !== 'total' ? label(tz, c.queuedAt, q.disPlay) : q.multi ? 'total' : '';
    for (const [k, hs] of groups) {
      if (!cells.has(k)) cells.set(k, new Map());
      const m = cells.get(k)!;
      m.set(bucket, [...(m.get(bucket) ?? []), { hits: hs, call: c }]);
    }
  }
  const counters = (list: { hits: CallRecord['hits']; call: CallRecord }[]) => {
    const all = list.flatMap((x) => x.hits);
    const ca = list.filter((x) => x.hits.some((h) => h.answered));
    const rest = list.filter((x) => !x.hits.some((h) => h.answered));
    const pm = rest.filter((x) => x.call.answeredAt !== null);
    const cm = rest.filter((x) => x.call.answeredAt === null);
    const fr = (l: typeof list) => l.filter((x) => x.call.retryOf !== null).length;
    return {
      TC: all.length,
      AC: all.filter((h) => h.answered).length,
      MC: all.filter((h) => !h.answered).length,
      UC: list.length,
      CA: ca.length,
      PM: pm.length,
      CM: cm.length,
      FR_UC: fr(list),
      FR_CA: fr(ca),
      FR_PM: fr(pm),
      FR_CM: fr(cm),
      FR_CAN_FR_PM_N: list.filter((x) => x.call.answeredAt === null && answeredRetry.has(x.call.callId)).length,
      GH_UC: ca.filter((x) => x.call.talkSecs <= ghost).length,
      avgRingTime: all.length ? r2(all.reduce((n, h) => n + h.ringSecs, 0) / all.length) : null,
      avgHoldTime: ca.length ? r2(ca.reduce((n, x) => n + x.call.holdSecs, 0) / ca.length) : null,
    };
  };
  const data: Record<string, unknown> = {};
  for (const [k, m] of cells) data[k] = q.multi ? Object.fromEntries([...m].map(([b, l]) => [b, counters(l)])) : counters(m.get('')!);
  return Object.keys(data).length ? data : null;
}

function rangeOf(kind: string, at: [number, number]): { val: string; range: [number, number] | null; wall: boolean } | null {
  if (kind === 'none') return null;
  if (kind === 'any') return { val: `${D + at[0]},${D + at[0] + at[1] - 1}`, range: [D + at[0], D + at[0] + at[1]], wall: false };
  if (kind === 'days') return { val: '01-10-2026 00:00:00,01-11-2026 23:59:59', range: null, wall: true };
  if (kind === 'hours') return { val: '01-10-2026 05:00:00,01-11-2026 17:59:59', range: null, wall: true };
  return { val: `${D + 3 * 3600 + 17},${D + 50 * 3600 + 11}`, range: [D + 3 * 3600 + 17, D + 50 * 3600 + 12], wall: false };
}

function wallRange(val: string, tz: string): [number, number] {
  const toUtc = (s: string) => {
    const [, mo, d, y, hh, mi, ss] = /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)$/.exec(s)!.map(Number) as number[];
    const wall = Date.UTC(y!, mo! - 1, d!, hh!, mi!, ss!) / 1000;
    // Find the UTC instant whose local wall clock is `wall` (zones here have one offset around January).
    const off = (t: number) => {
      const p = Object.fromEntries(
        new Intl.DateTimeFormat('en-US', {
          timeZone: tz,
          hourCycle: 'h23',
          year: 'numeric',
          month: 'numeric',
          day: 'numeric',
          hour: 'numeric',
          minute: 'numeric',
          second: 'numeric',
        })
          .formatToParts(new Date(t * 1000))
          .map((x) => [x.type, Number(x.value)]),
      );
      return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000 - t;
    };
    return wall - off(wall);
  };
  const [a, b] = val.split(',');
  return [toUtc(a!), toUtc(b!) + 1];
}

forEachDatabase('analysis/hits equals a brute-force count (property)', (use) => {
  let h: Harness;
  let second: { app: Awaited<ReturnType<typeof buildApp>>['app']; db: Database };
  beforeAll(async () => {
    h = use();
    // A second node on the same database: its own caches, the same roll-ups and change marks. It sends no
    // webhooks (on SQLite its worker's writes would wait on this process's own open transaction).
    const db = h.testDb.connect();
    second = { app: (await buildApp({ config: { ...h.ctx.config, webhookDelivery: false }, db, clock: h.clock })).app, db };
    await second.app.ready();
  });
  afterAll(async () => {
    await second.app.close();
    await second.db.close();
  });

  it('random calls, arrival orders, late versions and queries', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callArb, { minLength: 1, maxLength: 14 }),
        fc.array(queryArb, { minLength: 3, maxLength: 3 }),
        fc.constantFrom(...ZONES),
        fc.constantFrom(0, 3, 10, 20),
        fc.boolean(),
        fc.integer(),
        async (specs, queries, tz, ghost, bulk, seed) => {
          const s = await createTenant(h, { timezone: tz });
          await h.post('/api/v2/account/updateSettings', { ssid: s.ssid, ghostThresholdSecs: ghost });
          const recs = toRecords(s.accountId, specs);
          const order = recs.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13));
          if (bulk) {
            // Rows of the whole batch first, then the roll-ups (how events/ingest writes a batch).
            const first = order.map((i) => recs[i]!.early ?? recs[i]!.final);
            await h.db.transaction((tx) => callHistory(tx).record(tx, s.accountId, first));
          } else {
            for (const i of order) await store(h, recs[i]!.early ?? recs[i]!.final);
          }
          const ask = async (node: { inject: Harness['app']['inject'] }, body: object) =>
            (await node.inject({ method: 'POST', url: '/api/v2/analysis/hits', payload: { ssid: s.ssid, ...body } })).json() as {
              code: number;
              data: unknown;
            };
          /** Each question on `nodes` in turn (a node asked twice: cold, then warm), every answer against the raw count. */
          const check = async (records: CallRecord[], stage: string, nodes: Array<[string, { inject: Harness['app']['inject'] }]>) => {
            for (const q of queries) {
              const r = rangeOf(q.range, q.at);
              const range = r ? (r.wall ? wallRange(r.val, tz) : r.range) : null;
              const filter = [
                ...(r ? [{ key: 'date', condi: 'range', val: r.val }] : []),
                ...q.filters.map((f) => ({ ...f, val: f.condi === 'in' ? f.val : f.val[0] })),
              ];
              const fixed = { ...q, filters: q.filters.map((f) => (f.condi === 'in' ? f : { ...f, val: [f.val[0]!] })) };
              const expected = bruteForce(records, fixed, range, tz, ghost);
              for (const [how, node] of nodes) {
                const res = await ask(node, { breakDown: q.breakDown, disPlay: q.disPlay, multi: q.multi, filter });
                const where = JSON.stringify({ stage, how, q, tz, ghost });
                if (expected === null) expect(res.code, `${where} ${JSON.stringify(res)}`).toBe(1586);
                else expect(res.data, where).toEqual(expected);
              }
            }
          };
          await check(
            recs.map((r) => r.early ?? r.final),
            'before late versions',
            [
              ['cold', h.app],
              ['warm', h.app],
              ['second node', second.app],
            ],
          );
          // The late versions replace calls of days both nodes kept answers of: the next answers must show them.
          for (const i of order) if (recs[i]!.early) await replace(h, recs[i]!.early!, recs[i]!.final);
          await check(
            recs.map((r) => r.final),
            'after late versions',
            [
              ['after a late event', h.app],
              ['second node, after a late event', second.app],
            ],
          );
        },
      ),
      { numRuns: Number(process.env.ANALYSIS_PROPERTY_RUNS ?? 40) },
    );
  }, 240_000);
});

forEachDatabase('analysis/hits over a range ending now, while calls are stored (property)', (use) => {
  let h: Harness;
  beforeAll(() => {
    h = use();
  });

  it('the last 31 days up to the current second, total or by date or hour, equal a brute-force count after every stored batch', async () => {
    // A call and how many seconds before the batch is stored it was queued (up to 33 days: some fall before the range).
    const nowCallArb = fc.tuple(callArb, fc.integer({ min: 0, max: 33 * 86400 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(nowCallArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom('agentId', 'groupId', 'did', 'campaignId'),
        // America/New_York: hour buckets of a split range come from kept days only where a UTC hour is a local hour.
        fc.constantFrom('UTC', 'Asia/Kolkata', 'America/New_York'),
        fc.boolean(),
        fc.constantFrom('date' as const, 'hour' as const),
        async (batches, breakDown, tz, multi, bucket) => {
          const s = await createTenant(h, { timezone: tz });
          const stored: CallRecord[] = [];
          let n = 0;
          for (const batch of batches) {
            const now = Math.floor(Date.now() / 1000);
            // Offsets from D re-based on now: toRecords places a call at D + offset.
            const specs = batch.map(([c, ago]) => ({ ...c, offset: now - ago - D, retryIx: null, late: false }));
            const recs = toRecords(s.accountId, specs).map((r) => ({ ...r.final, callId: `n${n++}` }));
            await store(h, ...recs);
            stored.push(...recs);
            const askedAt = Math.floor(Date.now() / 1000);
            const range: [number, number] = [askedAt - 31 * 86400, askedAt + 1];
            const q: QuerySpec = { breakDown, disPlay: multi ? bucket : 'total', multi, range: 'any', at: [0, 1], filters: [] };
            const expected = bruteForce(stored, q, range, tz, 3);
            const res = await h.post('/api/v2/analysis/hits', {
              ssid: s.ssid,
              breakDown,
              disPlay: q.disPlay,
              multi,
              filter: [{ key: 'date', condi: 'range', val: `${range[0]},${askedAt}` }],
            });
            if (expected === null) expect(res.body.code).toBe(1586);
            else expect(res.body.data, JSON.stringify({ tz, breakDown, multi, bucket })).toEqual(expected);
          }
        },
      ),
      { numRuns: Number(process.env.ANALYSIS_PROPERTY_RUNS ?? 40) / 2 },
    );
  }, 240_000);
});
