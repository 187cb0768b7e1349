import { dialectOf } from '../../db/dialect.js';
import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';
import type { Later } from './compliance.js';

/** One dial of a batch: the call and the attempt it makes. */
export interface BatchDial {
  call_id: string;
  contact_id: number;
  number: string;
  agent_id: number | null;
  /** The contact's attempts when it was chosen (the write checks they did not move). */
  was: number;
  retry_of: string | null;
}

/**
 * The statements of one campaign's dials of one tick (dial-batch.ts), each
 * one statement whatever the number of dials (the rows as one JSON parameter):
 * inside the dial transaction every statement is a round trip, and those after
 * the account's sequence lock hold it.
 */
export class DialBatchRepository {
  constructor(private readonly t: TenantQueries) {}

  /**
   * The campaign's calls in progress (its lines) and, of `numbers`, those in a
   * call of any campaign of the account. Two index reads in one statement
   * (campaign_calls_in_progress, campaign_calls_open).
   */
  async inProgress(campaignId: number, numbers: readonly string[]): Promise<{ lines: number; busy: Set<string> }> {
    const list = inList(this.t, 'number', 3, [...new Set(numbers)]);
    const rows = await this.t.all<{ campaign_id: number; number: string }>(
      `SELECT campaign_id, number FROM campaign_calls WHERE account_id = $1 AND ended_at IS NULL AND campaign_id = $2
       UNION ALL
       SELECT campaign_id, number FROM campaign_calls WHERE account_id = $1 AND ended_at IS NULL AND campaign_id <> $2 AND ${list.sql}`,
      [campaignId, list.param],
    );
    return { lines: rows.filter((r) => Number(r.campaign_id) === campaignId).length, busy: new Set(rows.map((r) => r.number)) };
  }

  /** Leaves contacts for later (or for good) with why: `setLater` of each. */
  async setLater(campaignId: number, rows: ReadonlyArray<{ contactId: number; later: Later }>): Promise<void> {
    if (rows.length === 0) return;
    const j = dialectOf(this.t).jsonRows(3, 'j', [
      ['contact_id', 'bigint'],
      ['next_at', 'bigint'],
      ['done', 'integer'],
      ['outcome', 'text'],
      ['number', 'text'],
    ]);
    await this.t.run(
      `UPDATE campaign_contacts AS c SET next_at = j.next_at, done = j.done, last_outcome = COALESCE(j.outcome, c.last_outcome), number = COALESCE(j.number, c.number)
       FROM ${j} WHERE c.account_id = $1 AND c.campaign_id = $2 AND c.contact_id = j.contact_id`,
      [
        campaignId,
        JSON.stringify(
          rows.map(({ contactId, later: l }) => ({ contact_id: contactId, next_at: l.nextAt, done: l.done ? 1 : 0, outcome: l.outcome, number: l.number })),
        ),
      ],
    );
  }

  /**
   * Records the dials and puts each contact in its call. The contacts move
   * only if each is still as it was chosen (not in a call, not done, the same
   * attempt count: another node or a restart may have dialled it); answers
   * how many moved, and the caller rolls back when not all did.
   */
  async record(campaignId: number, predictive: boolean, dialledAt: number, dials: readonly BatchDial[]): Promise<number> {
    if (dials.length === 0) return 0;
    const rows = JSON.stringify(dials);
    const moved = await this.t.run(
      `UPDATE campaign_contacts AS c SET attempts = c.attempts + 1, in_call = j.call_id, last_call = j.call_id, callback = 0, reserved_by = NULL, reserved_until = 0, number = j.number
       FROM ${dialectOf(this.t).jsonRows(3, 'j', [
         ['contact_id', 'bigint'],
         ['was', 'integer'],
         ['call_id', 'text'],
         ['number', 'text'],
       ])}
       WHERE c.account_id = $1 AND c.campaign_id = $2 AND c.contact_id = j.contact_id AND c.attempts = j.was AND c.in_call IS NULL AND c.done = 0`,
      [campaignId, rows],
    );
    await this.t.run(
      `INSERT INTO campaign_calls (account_id, call_id, campaign_id, contact_id, number, agent_id, attempt, retry_of, predictive, dialled_at)
       SELECT CAST($1 AS BIGINT), j.call_id, CAST($2 AS BIGINT), j.contact_id, j.number, j.agent_id, j.was + 1, j.retry_of, CAST($4 AS INTEGER), CAST($5 AS BIGINT)
       FROM ${dialectOf(this.t).jsonRows(3, 'j', [
         ['call_id', 'text'],
         ['contact_id', 'bigint'],
         ['number', 'text'],
         ['agent_id', 'bigint'],
         ['was', 'integer'],
         ['retry_of', 'text'],
       ])}`,
      [campaignId, rows, predictive ? 1 : 0, dialledAt],
    );
    return moved.changes;
  }
}
