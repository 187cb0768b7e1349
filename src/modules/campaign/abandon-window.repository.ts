import { dialectOf } from '../../db/dialect.js';
import type { TenantQueries } from '../../db/tenant.js';

/**
 * What the abandon window counts of a dial, from its answer and outcome: 1 a
 * person answered (an abandoned call nobody identified counts as one), 2
 * abandoned, 3 both, 0 neither (machines, no answer). `campaign_calls.counted`
 * holds it as the counters have it (migration 272, which writes the same
 * expression out: a shipped migration never changes).
 */
export const COUNTED_SQL =
  "(CASE WHEN answered_by = 'human' OR (outcome = 'abandoned' AND answered_by IS NULL) THEN 1 ELSE 0 END + CASE WHEN outcome = 'abandoned' THEN 2 ELSE 0 END)";

const HOUR = 3600;
const DAY = 86_400;

/** Over a campaign's window: people who answered, and of them those abandoned. */
export interface WindowFigures {
  humanAnswered: number;
  abandoned: number;
}

/** A dial as a change of its answer or outcome left it: what the counters hold of it (`counted`), and what they must (`now`). */
export interface ChangedDial {
  campaign_id: number;
  dialled_at: number;
  counted: number;
  now: number;
}

/** The counters' change for a dial from `was` to `now`: days first, then hours, in every writer (one lock order). */
const FOLLOW_SQL = `INSERT INTO campaign_window_counts (account_id, campaign_id, span, bucket, human, abandoned)
  VALUES ($1, $2, ${DAY}, $3, $5, $6), ($1, $2, ${HOUR}, $4, $5, $6)
  ON CONFLICT (account_id, campaign_id, span, bucket) DO UPDATE SET
    human = campaign_window_counts.human + excluded.human, abandoned = campaign_window_counts.abandoned + excluded.abandoned`;

/**
 * The window as the counters give it, for every campaign of the JSON
 * parameter ($2: campaign_id, since, h = the first whole hour from since,
 * d = the first whole day): the dials of [since, h), the hour counters of
 * [h, d), the day counters from d. PostgreSQL: a LATERAL read per
 * campaign, each part an index range of its own (a join from the JSON rows
 * was planned as a hash join over every dial of the account before planner
 * statistics: 20,880 rows a tick with 20 predictive campaigns). SQLite: the
 * JSON rows as the outer loop of each part (LEFT JOIN: with a JOIN its
 * planner scans the table and probes the JSON array for each row).
 */
function windowsSql(t: TenantQueries): string {
  const j = dialectOf(t).jsonRows(2, 'j', [
    ['campaign_id', 'bigint'],
    ['since', 'bigint'],
    ['h', 'bigint'],
    ['d', 'bigint'],
  ]);
  if (t.dialect === 'postgres')
    return `SELECT j.campaign_id, x.h, x.a FROM ${j} CROSS JOIN LATERAL (
      SELECT SUM(p.h) AS h, SUM(p.a) AS a FROM (
        SELECT counted % 2 AS h, counted / 2 AS a FROM campaign_calls
         WHERE account_id = $1 AND campaign_id = j.campaign_id AND dialled_at >= j.since AND dialled_at < j.h
        UNION ALL
        SELECT human, abandoned FROM campaign_window_counts
         WHERE account_id = $1 AND campaign_id = j.campaign_id AND span = ${HOUR} AND bucket >= j.h AND bucket < j.d
        UNION ALL
        SELECT human, abandoned FROM campaign_window_counts
         WHERE account_id = $1 AND campaign_id = j.campaign_id AND span = ${DAY} AND bucket >= j.d
      ) AS p) AS x`;
  return `SELECT p.campaign_id, SUM(p.h) AS h, SUM(p.a) AS a FROM (
      SELECT j.campaign_id, w.counted % 2 AS h, w.counted / 2 AS a FROM ${j}
        LEFT JOIN campaign_calls w ON w.account_id = $1 AND w.campaign_id = j.campaign_id AND w.dialled_at >= j.since AND w.dialled_at < j.h
      UNION ALL
      SELECT j.campaign_id, c.human, c.abandoned FROM ${j}
        LEFT JOIN campaign_window_counts c ON c.account_id = $1 AND c.campaign_id = j.campaign_id AND c.span = ${HOUR} AND c.bucket >= j.h AND c.bucket < j.d
      UNION ALL
      SELECT j.campaign_id, c.human, c.abandoned FROM ${j}
        LEFT JOIN campaign_window_counts c ON c.account_id = $1 AND c.campaign_id = j.campaign_id AND c.span = ${DAY} AND c.bucket >= j.d
    ) AS p GROUP BY p.campaign_id`;
}

/** Counters wholly older than this many seconds are never read again: every window starts within the last 30 days (a day of margin). */
export const WINDOW_COUNTS_KEPT_SECS = 31 * DAY;

/**
 * Removes, across accounts, the counters that end before `before` (Unix
 * seconds): no window reads them (a window starts at most 30 days back,
 * §13), and without this they grew by about 25 rows a campaign a day for
 * ever. A late change of an older dial still follows into its counters
 * (a row made again, never read). Answers how many went.
 */
export async function pruneWindowCounts(t: TenantQueries, before: number): Promise<number> {
  const rows = await t.untenanted(
    'housekeeping of every account: counters no window can read any more',
    'DELETE FROM campaign_window_counts WHERE bucket + span <= $1 RETURNING span',
    [before],
  );
  return rows.length;
}

/**
 * The abandon window of predictive campaigns (PRODUCT.md §13: the abandon
 * rate over the rolling 30 days or 24 hours never exceeds maxAbandonRate
 * once 100 people answered), kept as counters per campaign and UTC hour and
 * day (`campaign_window_counts`, migration 272) so that a tick's read does
 * not grow with the window's dials. Exact: whole hours and days inside the
 * window from the counters, the hour the window starts in from its dials.
 * The counters change only through `follow`, which DialerRepository's one
 * writer of a dial's answer and outcome calls in the same transaction.
 */
export class AbandonWindowRepository {
  constructor(private readonly t: TenantQueries) {}

  /**
   * After a change of the dial's answer or outcome, in its transaction (the
   * change holds the dial's row, so no other writer's change of it comes
   * between): the difference to the counters of its hour and day, and
   * `counted` set to what they now hold.
   */
  async follow(callId: string, d: ChangedDial): Promise<void> {
    const was = Number(d.counted);
    const now = Number(d.now);
    if (was === now) return;
    const at = Number(d.dialled_at);
    await this.t.run(FOLLOW_SQL, [d.campaign_id, at - (at % DAY), at - (at % HOUR), (now % 2) - (was % 2), (now >> 1) - (was >> 1)]);
    await this.t.run('UPDATE campaign_calls SET counted = $3 WHERE account_id = $1 AND call_id = $2', [callId, now]);
  }

  /** Each campaign's window from its `since`, from the counters (one statement for them all). */
  async windowsOf(campaigns: ReadonlyArray<{ campaign_id: number; since: number }>): Promise<Map<number, WindowFigures>> {
    const out = new Map<number, WindowFigures>();
    if (campaigns.length === 0) return out;
    const params = campaigns.map((c) => ({
      campaign_id: c.campaign_id,
      since: c.since,
      h: Math.ceil(c.since / HOUR) * HOUR,
      d: Math.ceil(c.since / DAY) * DAY,
    }));
    const rows = await this.t.all<{ campaign_id: number; h: number | null; a: number | null }>(windowsSql(this.t), [JSON.stringify(params)]);
    for (const r of rows) out.set(Number(r.campaign_id), { humanAnswered: Number(r.h ?? 0), abandoned: Number(r.a ?? 0) });
    return out;
  }

  /**
   * The window counted from the dials themselves, every dial from `since`
   * (the reference the counters must equal: test/integration/
   * campaign-abandon-window.test.ts compares them on both databases).
   */
  async fromDials(campaignId: number, since: number): Promise<WindowFigures> {
    const row = await this.t.get<{ h: number | null; a: number | null }>(
      `SELECT SUM(CASE WHEN answered_by = 'human' OR (outcome = 'abandoned' AND answered_by IS NULL) THEN 1 ELSE 0 END) AS h,
              SUM(CASE WHEN outcome = 'abandoned' THEN 1 ELSE 0 END) AS a
       FROM campaign_calls WHERE account_id = $1 AND campaign_id = $2 AND dialled_at >= $3`,
      [campaignId, since],
    );
    return { humanAnswered: Number(row?.h ?? 0), abandoned: Number(row?.a ?? 0) };
  }

  /**
   * Counts the campaign's counters again from its dials: for dials written
   * by other means than the dialer (a benchmark's or a test's seeded
   * history), or a repair. In a transaction, with nothing else changing the
   * campaign's dials.
   */
  async recount(campaignId: number): Promise<void> {
    await this.t.run(`UPDATE campaign_calls SET counted = ${COUNTED_SQL} WHERE account_id = $1 AND campaign_id = $2 AND counted <> ${COUNTED_SQL}`, [
      campaignId,
    ]);
    await this.t.run('DELETE FROM campaign_window_counts WHERE account_id = $1 AND campaign_id = $2', [campaignId]);
    await this.t.run(
      `INSERT INTO campaign_window_counts (account_id, campaign_id, span, bucket, human, abandoned)
       SELECT c.account_id, c.campaign_id, s.span, c.dialled_at / s.span * s.span, SUM(c.counted % 2), SUM(c.counted / 2)
       FROM campaign_calls c CROSS JOIN (SELECT ${HOUR} AS span UNION ALL SELECT ${DAY}) AS s
       WHERE c.account_id = $1 AND c.campaign_id = $2 AND c.counted <> 0
       GROUP BY c.account_id, c.campaign_id, s.span, c.dialled_at / s.span * s.span`,
      [campaignId],
    );
  }
}
