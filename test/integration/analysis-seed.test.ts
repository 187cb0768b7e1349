import { beforeAll, expect, it } from 'vitest';
import { createTenant, type Session } from '../helpers/factories.js';
import { runCli } from '../helpers/cli.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';

/** `callcenter seed --calls N`: realistic history whose roll-ups agree with the raw calls. */
forEachDatabase('seed --calls and seed --analysis-rebuild', (use) => {
  let h: Harness;
  let s: Session & { accountId: number; username: string };
  beforeAll(async () => {
    h = use();
    s = await createTenant(h);
  });

  it('loads the calls with a progress line, creating groups, DIDs and agents; roll-ups equal the raw count', async () => {
    const run = await runCli(['seed', '--calls', '3000', '--days', '3', '--account', s.username], h.testDb.env);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/calls\/s/);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toMatchObject({ accountId: String(s.accountId), calls: 3000 });
    const count = await h.db.get<{ n: number; lo: number; hi: number }>(
      'SELECT COUNT(*) AS n, MIN(queued_at) AS lo, MAX(queued_at) AS hi FROM calls WHERE account_id = $1',
      [s.accountId],
    );
    expect(Number(count!.n)).toBe(3000);
    expect(Number((await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM groups WHERE account_id = $1', [s.accountId]))!.n)).toBe(20);
    expect(Number((await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM agents WHERE account_id = $1', [s.accountId]))!.n)).toBe(200);
    const retries = await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE account_id = $1 AND retry_of IS NOT NULL', [s.accountId]);
    expect(Number(retries!.n)).toBeGreaterThan(0);

    const all = async (breakDown: string) => (await h.post('/api/v2/analysis/hits', { ssid: s.ssid, breakDown })).body.data;
    // A range of seconds around every call is not whole days: the raw path counts it.
    const raw = async (breakDown: string) =>
      (
        await h.post('/api/v2/analysis/hits', {
          ssid: s.ssid,
          breakDown,
          filter: [{ key: 'date', condi: 'range', val: `${Math.floor(Number(count!.lo)) - 7},${Math.ceil(Number(count!.hi)) + 7}` }],
        })
      ).body.data;
    for (const b of ['agentId', 'groupId', 'did', 'campaignId']) expect(await all(b)).toEqual(await raw(b));
    const groups = (await all('groupId')) as Record<string, Record<string, number>>;
    const total = Object.values(groups).reduce((n, g) => n + g.UC!, 0);
    const offered = await h.db.get<{ n: number }>('SELECT COUNT(DISTINCT call_id) AS n FROM call_hits WHERE account_id = $1', [s.accountId]);
    expect(total).toBe(Number(offered!.n));
    expect(Object.values(groups).reduce((n, g) => n + g.FR_CAN_FR_PM_N!, 0)).toBeGreaterThan(0);

    const before = await all('agentId');
    const rebuilt = await runCli(['seed', '--analysis-rebuild', '--account', s.username], h.testDb.env);
    expect(rebuilt.code, rebuilt.output).toBe(0);
    expect(await all('agentId')).toEqual(before);
  }, 120_000);

  it('rejects a bad count', async () => {
    const run = await runCli(['seed', '--calls', 'many'], h.testDb.env);
    expect(run.code).toBe(2);
    expect(run.output).toMatch(/usage/);
  });
});
