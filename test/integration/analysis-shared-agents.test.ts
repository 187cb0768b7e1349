import { beforeAll, expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { D, call, store } from './analysis.fixtures.js';

/**
 * Several named agents with a group breakdown are answered from the cube's
 * per-agent cells (answer/shared-calls.ts); a call offered to two of them
 * must still count once, through both agents' hits, as the raw calls count it.
 */
forEachDatabase('analysis/hits: several named agents, a call offered to both', (use) => {
  let h: Harness;
  beforeAll(() => {
    h = use();
  });

  it('counts shared calls once, with their retry flags and ghosts, as the raw path does', async () => {
    const s = await createTenant(h);
    const a = (n: number) => s.accountId * 1000 + n;
    const at = D + 3600;
    await store(
      h,
      // Missed by 201, answered by 202 after 2 s of talk (a ghost at thresholds ≥ 2).
      call(s.accountId, 'x1', at, {
        offers: [
          { agent: a(1), ring: 5 },
          { agent: a(2), ring: 4, answered: true },
        ],
        talkSecs: 2,
      }),
      call(s.accountId, 'x2', at + 600, { offers: [{ agent: a(1), ring: 6 }] }),
      // Missed by both, then retried and answered by 202: its retry flag (FR_CAN) once.
      call(s.accountId, 'x3', at + 1200, {
        offers: [
          { agent: a(1), ring: 3 },
          { agent: a(2), ring: 3 },
        ],
      }),
      call(s.accountId, 'x4', at + 1800, { retryOf: 'x3', offers: [{ agent: a(2), ring: 2, answered: true }], talkSecs: 30 }),
      call(s.accountId, 'x5', at + 2400, { offers: [{ agent: a(3), ring: 2, answered: true }], talkSecs: 30 }),
      // Missed by 202, answered by 203 (not named): answered elsewhere.
      call(s.accountId, 'x6', at + 3000, {
        offers: [
          { agent: a(2), ring: 7 },
          { agent: a(3), ring: 1, answered: true },
        ],
        talkSecs: 30,
      }),
    );
    const fields = 'TC,AC,MC,UC,CA,PM,CM,FR_UC,FR_CA,FR_CAN_FR_PM_N,GH_UC,avgRingTime';
    const ask = async (range: string) =>
      (
        await h.post('/api/v2/analysis/hits', {
          ssid: s.ssid,
          breakDown: 'groupId',
          fields,
          filter: [
            { key: 'date', condi: 'range', val: range },
            { key: 'agentId', condi: 'in', val: [a(1), a(2)] },
          ],
        })
      ).body;
    // Whole days: the cube's cells, corrected for x1 and x3.
    const wholeDays = await ask(`${D},${D + 86400 - 1}`);
    expect(wholeDays.data).toEqual({
      '55': { TC: 7, AC: 2, MC: 5, UC: 5, CA: 2, PM: 1, CM: 2, FR_UC: 1, FR_CA: 1, FR_CAN_FR_PM_N: 1, GH_UC: 1, avgRingTime: 4.29 },
    });
    // A range that is not whole days (the raw calls), holding the same calls.
    const raw = await ask(`${D + 60},${D + 86400 - 61}`);
    expect(raw.data).toEqual(wholeDays.data);
  });
});
