import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { rebuildRollups } from '../../src/modules/analysis/rollup/rebuild.js';
import { BY_AGENT, BY_GROUP, D, call, callHistory, replace, store, workedExample } from './analysis.fixtures.js';

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

const RANGE = { key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-11-2026 23:59:59' };

forEachDatabase('analysis/hits: counters of the worked example', (use) => {
  let h: Harness;
  let s: Session & { accountId: number };
  const hits = async (body: Record<string, unknown>) => (await h.post('/api/v2/analysis/hits', { ssid: s.ssid, filter: [RANGE], ...body })).body;
  const data = async (body: Record<string, unknown>) => {
    const b = await hits(body);
    expect(b.status, JSON.stringify(b)).toBe('success');
    return b.data as Record<string, Record<string, unknown>>;
  };

  beforeAll(async () => {
    h = use();
    s = await createTenant(h);
    await store(h, ...workedExample(s.accountId));
  });

  it('per agent (default breakDown): every counter as computed by hand', async () => {
    expect(await data({})).toEqual(BY_AGENT);
  });

  it('per group, DID and campaign', async () => {
    expect(await data({ breakDown: 'groupId' })).toEqual(BY_GROUP);
    const byDid = await data({ breakDown: 'did', fields: 'UC,CA,CM' });
    expect(byDid).toEqual({ '9100': { UC: 3, CA: 2, CM: 1 }, '9200': { UC: 1, CA: 1, CM: 0 }, '9300': { UC: 1, CA: 0, CM: 1 } });
    // c6 has no campaign: it has no key in the campaign breakdown.
    expect(await data({ breakDown: 'campaignId', fields: ['TC'] })).toEqual({ 'camp-a': { TC: 5 }, 'camp-b': { TC: 1 } });
  });

  it('the answer is the same through the raw fallback (a filter the roll-ups do not hold)', async () => {
    const viaRaw = await data({ filter: [RANGE, { key: 'campaignId', condi: 'ne', val: 'nope' }, { key: 'direction', condi: 'in', val: 'inbound,outbound' }] });
    // ne keeps calls without a campaign (c6 of agent 104): "not camp X" includes "no campaign".
    expect(viaRaw).toEqual(BY_AGENT);
    expect(await data({ breakDown: 'groupId', filter: [RANGE, { key: 'agentId', condi: 'in', val: [101, 104] }], fields: 'TC,UC,CA,PM,CM' })).toEqual({
      '55': { TC: 2, UC: 2, CA: 0, PM: 1, CM: 1 },
      '56': { TC: 1, UC: 1, CA: 1, PM: 0, CM: 0 },
      '57': { TC: 1, UC: 1, CA: 0, PM: 0, CM: 1 },
    });
  });

  it('an agentId filter selects those agents (eq, in as array or comma string, ne)', async () => {
    expect(Object.keys(await data({ filter: [RANGE, { key: 'agentId', condi: 'eq', val: '101' }] }))).toEqual(['101']);
    expect(Object.keys(await data({ filter: [RANGE, { key: 'agentId', condi: 'in', val: '101,103' }] }))).toEqual(['101', '103']);
    expect(Object.keys(await data({ filter: [RANGE, { key: 'agentId', condi: 'in', val: [102] }] }))).toEqual(['102']);
    expect(Object.keys(await data({ filter: [RANGE, { key: 'agentId', condi: 'ne', val: 101 }] }))).toEqual(['102', '103', '104']);
  });

  it('a groupId filter with the agent breakdown counts the agents through that group only', async () => {
    const d = await data({ filter: [RANGE, { key: 'groupId', condi: 'eq', val: 55 }], fields: 'TC,UC,CA,PM,CM,FR_CAN_FR_PM_N,avgHoldTime' });
    expect(d['101']).toEqual({ TC: 2, UC: 2, CA: 0, PM: 1, CM: 1, FR_CAN_FR_PM_N: 1, avgHoldTime: null });
    expect(Object.keys(d)).toEqual(['101', '102', '103']);
  });

  it('direction filter', async () => {
    expect(await data({ filter: [RANGE, { key: 'direction', condi: 'eq', val: 'outbound' }], fields: 'TC' })).toEqual({ '104': { TC: 1 } });
  });

  it('multi true nests key → bucket → counters; disPlay date, hour, month, total', async () => {
    const byDate = await data({ multi: true, fields: 'TC,CA' });
    expect(byDate['101']).toEqual({ '2026-01-10': { TC: 2, CA: 0 }, '2026-01-11': { TC: 1, CA: 1 } });
    const byHour = await data({ multi: true, disPlay: 'hour', fields: 'TC' });
    expect(byHour['101']).toEqual({ '2026-01-10 10:00': { TC: 1 }, '2026-01-10 11:00': { TC: 1 }, '2026-01-11 05:00': { TC: 1 } });
    expect((await data({ multi: true, disPlay: 'month', fields: 'TC' }))['101']).toEqual({ '2026-01': { TC: 3 } });
    expect((await data({ multi: true, disPlay: 'total', fields: 'TC' }))['101']).toEqual({ total: { TC: 3 } });
    // multi false: one level, the whole range, whatever disPlay says.
    expect((await data({ disPlay: 'hour', fields: 'TC' }))['101']).toEqual({ TC: 3 });
  });

  it('a range that is not whole days or hours is answered exactly (raw path)', async () => {
    const d = await data({ filter: [{ key: 'date', condi: 'range', val: '01/10/2026 10:00:30,01/10/2026 11:10:00' }], fields: 'TC,UC' });
    expect(d).toEqual({ '101': { TC: 1, UC: 1 }, '103': { TC: 1, UC: 1 } });
  });

  it('date formats: dashes, slashes, spaces, Unix seconds, date only', async () => {
    for (const val of ['01 10 2026 00:00:00,01 11 2026 23:59:59', `${D},${D + 2 * 86400 - 1}`, '01-10-2026,01-11-2026']) {
      expect(await data({ filter: [{ key: 'date', condi: 'range', val }], fields: 'TC' })).toEqual({
        '101': { TC: 3 },
        '102': { TC: 1 },
        '103': { TC: 2 },
        '104': { TC: 1 },
      });
    }
  });

  it('fields: TH alias, fileds spelling, comma string or array', async () => {
    expect(await data({ fileds: 'TH', filter: [RANGE, { key: 'agentId', condi: 'eq', val: 101 }] })).toEqual({ '101': { TH: 3 } });
    expect(await data({ fields: ['avgRingTime', 'GH_UC'], filter: [RANGE, { key: 'agentId', condi: 'eq', val: 103 }] })).toEqual({
      '103': { avgRingTime: 10.5, GH_UC: 1 },
    });
  });

  it('1001: unparseable date, unknown counter, bad breakDown / disPlay / condi; 1586: nothing matches', async () => {
    expect((await hits({ filter: [{ key: 'date', condi: 'range', val: '13-45-2026 00:00:00,01-11-2026 23:59:59' }] })).code).toBe(1001);
    expect((await hits({ filter: [{ key: 'date', condi: 'range', val: 'yesterday,today' }] })).code).toBe(1001);
    expect((await hits({ filter: [{ key: 'date', condi: 'range', val: '01-11-2026 00:00:00,01-10-2026 00:00:00' }] })).code).toBe(1001);
    expect((await hits({ fields: 'TC,XX' })).code).toBe(1001);
    expect((await hits({ breakDown: 'caller' })).code).toBe(1001);
    expect((await hits({ disPlay: 'week' })).code).toBe(1001);
    expect((await hits({ filter: [{ key: 'agentId', condi: 'gt', val: 1 }] })).code).toBe(1001);
    // Unix times are seconds: a millisecond end (over 10^11) is refused saying so, as a string or a number.
    expect(await hits({ filter: [{ key: 'date', condi: 'range', val: `${D * 1000},${(D + 86400) * 1000}` }] })).toEqual({
      status: 'error',
      code: 1001,
      message: `Invalid data type or value: date from ${D * 1000} can only be milliseconds: Unix seconds are expected`,
    });
    expect((await hits({ filter: [{ key: 'date', condi: 'range', val: [D, (D + 86400) * 1000] }] })).message).toBe(
      `Invalid data type or value: date to ${(D + 86400) * 1000} can only be milliseconds: Unix seconds are expected`,
    );
    const none = await hits({ filter: [{ key: 'date', condi: 'range', val: '02-01-2026 00:00:00,02-02-2026 00:00:00' }] });
    expect(none).toMatchObject({ status: 'error', code: 1586 });
    expect((await hits({ filter: [RANGE, { key: 'agentId', condi: 'eq', val: 999 }] })).code).toBe(1586);
  });

  it('analysis/call is an alias; userId+token form; 1002 without userId; 1015 without analysis.view', async () => {
    const alias = await h.post('/api/v2/analysis/call', { ssid: s.ssid, filter: [RANGE], fields: 'TC' });
    expect(alias.body.data).toEqual({ '101': { TC: 3 }, '102': { TC: 1 }, '103': { TC: 2 }, '104': { TC: 1 } });
    const tok = await h.post('/api/v2/auth/token', { ssid: s.ssid, name: 'analysis' });
    const viaToken = await h.post('/api/v2/analysis/hits', { userId: tok.body.userId, token: tok.body.token, filter: [RANGE], fields: 'TC' });
    expect(viaToken.body.status).toBe('success');
    expect((await h.post('/api/v2/analysis/hits', { token: tok.body.token, filter: [RANGE] })).body.code).toBe(1002);
    const role = await createRole(h, s, { permissions: ['agent.view'] });
    const agent = await createAgent(h, s, { role });
    const login = await h.post('/api/v2/auth/login', { username: agent.email, password: agent.password });
    const denied = await h.post('/api/v2/analysis/hits', { ssid: login.body.ssid, filter: [RANGE] });
    expect(denied.body).toMatchObject({ status: 'error', code: 1015 });
  });

  it('rebuilding the roll-ups from the calls gives the same counters', async () => {
    const before = await data({ multi: true });
    await rebuildRollups(h.db, s.accountId);
    expect(await data({ multi: true })).toEqual(before);
    expect(await data({})).toEqual(BY_AGENT);
  });

  it('a lower ghost threshold changes GH_UC; one above the roll-up columns is answered from the raw calls', async () => {
    await h.post('/api/v2/account/updateSettings', { ssid: s.ssid, ghostThresholdSecs: 1 });
    expect((await data({ fields: 'GH_UC' }))['103']).toEqual({ GH_UC: 0 });
    await h.post('/api/v2/account/updateSettings', { ssid: s.ssid, ghostThresholdSecs: 60 });
    expect(await data({ fields: 'GH_UC' })).toEqual({ '101': { GH_UC: 0 }, '102': { GH_UC: 1 }, '103': { GH_UC: 1 }, '104': { GH_UC: 0 } });
    await h.post('/api/v2/account/updateSettings', { ssid: s.ssid, ghostThresholdSecs: 3 });
  });
});

forEachDatabase('analysis/hits: retries, late versions, time zones', (use) => {
  let h: Harness;
  const fields = 'TC,UC,CA,PM,CM,FR_UC,FR_CA,FR_CAN_FR_PM_N';
  const byAgent = async (ssid: string, val = '01-10-2026 00:00:00,01-11-2026 23:59:59') =>
    (await h.post('/api/v2/analysis/hits', { ssid, filter: [{ key: 'date', condi: 'range', val }], fields })).body.data as Record<
      string,
      Record<string, number>
    >;
  beforeAll(() => {
    h = use();
  });

  it('a retry that arrives before its original gives the same counters', async () => {
    const s = await createTenant(h);
    const [c1, c2, c3, c4, c5, c6] = workedExample(s.accountId);
    await store(h, c3!, c6!, c4!);
    await store(h, c5!, c2!, c1!);
    const d = await byAgent(s.ssid);
    for (const [agent, expected] of Object.entries(BY_AGENT))
      expect(d[agent]).toMatchObject({ FR_CAN_FR_PM_N: expected.FR_CAN_FR_PM_N, UC: expected.UC, CM: expected.CM });
  });

  it('rows written for a whole batch before the batch is applied (bulk ingest) count each retry flag once', async () => {
    const s = await createTenant(h);
    const records = workedExample(s.accountId);
    // One batch, retries ahead of their originals: every row is written before any is rolled up.
    await h.db.transaction((tx) => callHistory(tx).record(tx, s.accountId, [...records].reverse()));
    expect(await byAgent(s.ssid)).toEqual(Object.fromEntries(Object.entries(BY_AGENT).map(([k, v]) => [k, pick(v, fields.split(','))])));
  });

  it('a late version (-1 old, +1 new) moves the counters; two answered retries count the original once', async () => {
    const s = await createTenant(h);
    const a = s.accountId;
    const orig = call(a, 'o', D + 3600, { offers: [{ agent: 7, ring: 5 }] });
    const r1 = call(a, 'r1', D + 7200, { retryOf: 'o', offers: [{ agent: 8, ring: 5 }] });
    await store(h, orig, r1);
    expect(await byAgent(s.ssid)).toEqual({
      '7': { TC: 1, UC: 1, CA: 0, PM: 0, CM: 1, FR_UC: 0, FR_CA: 0, FR_CAN_FR_PM_N: 0 },
      '8': { TC: 1, UC: 1, CA: 0, PM: 0, CM: 1, FR_UC: 1, FR_CA: 0, FR_CAN_FR_PM_N: 0 },
    });
    // A late call.answered: the retry's new version is answered by 8.
    const r1b = call(a, 'r1', D + 7200, { retryOf: 'o', offers: [{ agent: 8, ring: 5, answered: true }], talkSecs: 30 });
    await replace(h, r1, r1b);
    expect((await byAgent(s.ssid))['7']).toMatchObject({ CM: 1, FR_CAN_FR_PM_N: 1 });
    expect((await byAgent(s.ssid))['8']).toMatchObject({ CA: 1, CM: 0, FR_CA: 1 });
    // A second answered retry does not count the original twice; removing one keeps it counted.
    const r2 = call(a, 'r2', D + 9000, { retryOf: 'o', offers: [{ agent: 9, ring: 3, answered: true }], talkSecs: 30 });
    await store(h, r2);
    expect((await byAgent(s.ssid))['7']!.FR_CAN_FR_PM_N).toBe(1);
    await replace(h, r1b, r1);
    expect((await byAgent(s.ssid))['7']!.FR_CAN_FR_PM_N).toBe(1);
    // The original itself answered late: it is no longer an unanswered original.
    const origAnswered = call(a, 'o', D + 3600, { offers: [{ agent: 7, ring: 5, answered: true }], talkSecs: 10 });
    await replace(h, orig, origAnswered);
    expect((await byAgent(s.ssid))['7']).toMatchObject({ CA: 1, CM: 0, FR_CAN_FR_PM_N: 0 });
  });

  it('buckets and date strings use the account time zone, half-hour zones included', async () => {
    const s = await createTenant(h, { timezone: 'Asia/Kolkata' });
    // 2026-01-10 20:00 UTC is 2026-01-11 01:30 in Kolkata.
    await store(h, call(s.accountId, 'k1', D + 20 * 3600, { offers: [{ agent: 5, ring: 4, answered: true }], talkSecs: 50 }));
    await store(h, call(s.accountId, 'k2', D + 3600, { offers: [{ agent: 5, ring: 2 }] }));
    const ask = (body: Record<string, unknown>) => h.post('/api/v2/analysis/hits', { ssid: s.ssid, fields: 'TC', multi: true, ...body });
    const day = await ask({ filter: [{ key: 'date', condi: 'range', val: '01-11-2026 00:00:00,01-11-2026 23:59:59' }] });
    expect(day.body.data).toEqual({ '5': { '2026-01-11': { TC: 1 } } });
    // Local hours: 06:30 and 01:30 local fall in the 06:00 and 01:00 buckets.
    const hour = await ask({ disPlay: 'hour', filter: [{ key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-11-2026 23:59:59' }] });
    expect(hour.body.data).toEqual({ '5': { '2026-01-10 06:00': { TC: 1 }, '2026-01-11 01:00': { TC: 1 } } });
    // A changed zone applies to past calls too.
    await h.post('/api/v2/account/updateSettings', { ssid: s.ssid, timezone: 'UTC' });
    const utc = await ask({ filter: [{ key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-11-2026 23:59:59' }] });
    expect(utc.body.data).toEqual({ '5': { '2026-01-10': { TC: 2 } } });
    // Rebuilt in the new zone, the daily roll-up gives the same answer.
    expect(await rebuildRollups(h.db, s.accountId)).toBe(2);
    expect((await h.db.get<{ timezone: string }>('SELECT timezone FROM analysis_rollup_state WHERE account_id = $1', [s.accountId]))?.timezone).toBe('UTC');
    const rebuilt = await ask({ filter: [{ key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-11-2026 23:59:59' }] });
    expect(rebuilt.body.data).toEqual({ '5': { '2026-01-10': { TC: 2 } } });
  });
});

describe('analysis fixtures', () => {
  it('the worked example has the documented totals', () => {
    expect(Object.values(BY_AGENT).reduce((n, a) => n + a.TC, 0)).toBe(7);
  });
});
