import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { report } from './reports.fixtures.js';

/** `callcenter seed --calls N` also writes the agents' state history, consistent with the calls. */
forEachDatabase('seed --calls: report roll-ups and agent state history', (use) => {
  it('queue figures count every seeded call; agent time holds logins, breaks with reasons and wrap-ups around the calls', async () => {
    const h = use();
    const s = await createTenant(h);
    const run = await runCli(['seed', '--calls', '2000', '--days', '2', '--account', s.username], h.testDb.env);
    expect(run.code, run.output).toBe(0);
    const now = Math.floor(Date.now() / 1000);
    const range = { ssid: s.ssid, from: now - 4 * 86400, to: now + 86400, interval: 'total' };
    const queue = await report<Record<string, number>>(h, 'queue', range);
    expect(queue.reduce((n, r) => n + r.offered!, 0)).toBe(2000);
    const answered = await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE account_id = $1 AND answered_at IS NOT NULL', [s.accountId]);
    expect(queue.reduce((n, r) => n + r.answered!, 0)).toBe(Number(answered!.n));
    expect(queue.every((r) => r.offered === 0 || r.avgWrap! > 0)).toBe(true);
    const agents = await report<Record<string, number> & { breaks: Record<string, number> }>(h, 'agent', range);
    expect(agents).toHaveLength(200);
    const hits = await h.db.get<{ n: number; a: number }>('SELECT COUNT(*) AS n, SUM(answered) AS a FROM call_hits WHERE account_id = $1', [s.accountId]);
    expect(agents.reduce((n, r) => n + r.offered!, 0)).toBe(Number(hits!.n));
    expect(agents.reduce((n, r) => n + r.answered!, 0)).toBe(Number(hits!.a));
    for (const r of agents) {
      // Login holds every state; what is left is ringing.
      const parts = r.availableTime! + r.talkTime! + r.holdTime! + r.wrapTime! + r.breakTime!;
      expect(r.loginTime! - parts).toBeGreaterThanOrEqual(-0.05);
      // Every answered offer ends in a wrap-up; its talk can be empty when the generator
      // gave the agent an overlapping offer whose time the builder cut (agent-history.ts).
      if (r.answered! > 0) expect(r.wrapTime! > 0, JSON.stringify(r)).toBe(true);
      expect(Object.values(r.breaks).reduce((n, v) => n + v, 0)).toBeCloseTo(r.breakTime!, 1);
    }
    const answering = agents.filter((r) => r.answered! > 0);
    expect(answering.filter((r) => r.talkTime! > 0).length).toBeGreaterThan(answering.length * 0.9);
    expect(agents.reduce((n, r) => n + r.breakTime!, 0)).toBeGreaterThan(0);
    expect(Object.keys(agents[0]!.breaks).length).toBeGreaterThan(1);
  }, 120_000);
});
