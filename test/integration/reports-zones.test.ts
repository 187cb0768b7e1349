import { expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { at, feed, report, utc } from './reports.fixtures.js';

forEachDatabase('reports in the account time zone: DST days, half-hour zones', (use) => {
  it('New York, 2026-11-01 (25 hours): the day spans 90000 s, the repeated 01:00 hour is two rows, time splits at each', async () => {
    const h = use();
    const t = await createTenant(h, { timezone: 'America/New_York' });
    const g = await createGroup(h, t);
    const a = (await createAgent(h, t, { group: g })).agentId;
    // Local midnight 04:00 UTC (EDT); at 06:00 UTC the clocks go back from 02:00 to 01:00; next midnight 05:00 UTC (EST).
    const M = utc(2026, 11, 1, 4);
    await feed(h, t.ssid, [
      at(M + 1800, 'agent.login', { agentId: a }), // 00:30 EDT
      at(utc(2026, 11, 1, 5, 30), 'call.queued', { callId: 'n1', groupId: g }), // 01:30 EDT
      at(utc(2026, 11, 1, 5, 30, 30), 'call.ended', { callId: 'n1', reason: 'abandoned' }),
      at(utc(2026, 11, 1, 6, 30), 'call.queued', { callId: 'n2', groupId: g }), // 01:30 EST
      at(utc(2026, 11, 1, 6, 30, 10), 'call.ended', { callId: 'n2', reason: 'abandoned' }),
      at(utc(2026, 11, 1, 8, 30), 'agent.logout', { agentId: a }), // 03:30 EST
    ]);
    const day = await report(h, 'agent', { ssid: t.ssid, from: '11-01-2026', to: '11-01-2026', agentId: a, interval: 'day' });
    expect(day).toMatchObject([{ start: M, end: M + 90000, loginTime: 4 * 3600, availableTime: 4 * 3600 }]);
    const hours = await report<Record<string, number>>(h, 'agent', { ssid: t.ssid, from: '11-01-2026', to: '11-01-2026', agentId: a, interval: 'hour' });
    expect(hours).toHaveLength(25);
    expect(hours.filter((r) => r.loginTime! > 0).map((r) => [r.start! - M, r.loginTime])).toEqual([
      [0, 1800],
      [3600, 3600], // 01:00 EDT
      [7200, 3600], // 01:00 EST
      [10800, 3600], // 02:00 EST
      [14400, 1800], // 03:00 EST
    ]);
    const q = await report<Record<string, number>>(h, 'queue', { ssid: t.ssid, from: '11-01-2026', to: '11-01-2026', groupId: g, interval: 'hour' });
    expect(q.filter((r) => r.offered! > 0).map((r) => [r.start! - M, r.offered, r.maxWait])).toEqual([
      [3600, 1, 30],
      [7200, 1, 10],
    ]);
    const total = await report(h, 'queue', { ssid: t.ssid, from: '11-01-2026', to: '11-01-2026', groupId: g, interval: 'day' });
    expect(total).toMatchObject([{ start: M, end: M + 90000, offered: 2, abandoned: 2, avgAbandonWait: 20, abandonRate: 100 }]);
  });

  it('Kolkata (+05:30): days and hours start at :30 UTC; a login across local midnight counts in both days', async () => {
    const h = use();
    const t = await createTenant(h, { timezone: 'Asia/Kolkata' });
    const g = await createGroup(h, t);
    const a = (await createAgent(h, t, { group: g })).agentId;
    const midnight = utc(2026, 11, 2, 18, 30); // 2026-11-03 00:00 IST
    await feed(h, t.ssid, [
      at(midnight - 1800, 'agent.login', { agentId: a }),
      at(midnight - 60, 'call.queued', { callId: 'k1', groupId: g }), // 23:59 IST
      at(midnight - 50, 'call.ended', { callId: 'k1', reason: 'abandoned' }),
      at(midnight + 60, 'call.queued', { callId: 'k2', groupId: g }), // 00:01 IST
      at(midnight + 75, 'call.ended', { callId: 'k2', reason: 'abandoned' }),
      at(midnight + 1800, 'agent.logout', { agentId: a }),
    ]);
    const days = await report(h, 'queue', { ssid: t.ssid, from: '11-02-2026', to: '11-03-2026', groupId: g, interval: 'day' });
    expect(days).toMatchObject([
      { start: midnight - 86400, end: midnight, offered: 1, maxWait: 10 },
      { start: midnight, end: midnight + 86400, offered: 1, maxWait: 15 },
    ]);
    const agentDays = await report(h, 'agent', { ssid: t.ssid, from: '11-02-2026', to: '11-03-2026', agentId: a, interval: 'day' });
    expect(agentDays).toMatchObject([{ loginTime: 1800 }, { loginTime: 1800 }]);
    const hours = await report<Record<string, number>>(h, 'queue', { ssid: t.ssid, from: midnight - 3600, to: midnight + 3599, groupId: g, interval: 'hour' });
    expect(hours.map((r) => [r.start, r.offered])).toEqual([
      [midnight - 3600, 1],
      [midnight, 1],
    ]);
    // Weeks start on Monday (2026-11-02 is a Monday), months on the 1st, local.
    const weeks = await report(h, 'queue', { ssid: t.ssid, from: '11-01-2026', to: '11-09-2026', groupId: g, interval: 'week' });
    expect(weeks).toMatchObject([
      { start: midnight - 2 * 86400, end: midnight - 86400, offered: 0 },
      { start: midnight - 86400, end: midnight + 6 * 86400, offered: 2 },
      { start: midnight + 6 * 86400, end: midnight + 7 * 86400, offered: 0 },
    ]);
    const months = await report(h, 'queue', { ssid: t.ssid, from: '10-31-2026', to: '11-30-2026', groupId: g, interval: 'month' });
    expect(months).toMatchObject([
      { start: midnight - 3 * 86400, end: midnight - 2 * 86400 },
      { start: midnight - 2 * 86400, end: midnight + 28 * 86400, offered: 2 },
    ]);
  });

  it('a changed account zone: days kept in the old zone are not used, the quarter hours answer in the new one', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const a = (await createAgent(h, t, { group: g })).agentId;
    const D = utc(2026, 11, 2);
    // 20:00–22:00 UTC on Nov 2, kept per UTC day; in Kolkata that is 01:30–03:30 on Nov 3.
    await feed(h, t.ssid, [at(D + 20 * 3600, 'agent.login', { agentId: a }), at(D + 22 * 3600, 'agent.logout', { agentId: a })]);
    expect(await report(h, 'agent', { ssid: t.ssid, from: '11-02-2026', to: '11-03-2026', agentId: a, interval: 'day' })).toMatchObject([
      { start: D, loginTime: 7200 },
      { start: D + 86400, loginTime: 0 },
    ]);
    const upd = await h.post('/api/v2/account/updateSettings', { ssid: t.ssid, timezone: 'Asia/Kolkata' });
    expect(upd.body.status, JSON.stringify(upd.body)).toBe('success');
    const midnight = utc(2026, 11, 1, 18, 30); // 2026-11-02 00:00 IST
    expect(await report(h, 'agent', { ssid: t.ssid, from: '11-02-2026', to: '11-03-2026', agentId: a, interval: 'day' })).toMatchObject([
      { start: midnight, loginTime: 0 },
      { start: midnight + 86400, loginTime: 7200 },
    ]);
  });
});
