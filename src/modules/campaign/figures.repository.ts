import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';

/**
 * A campaign call connected to an agent: an agent answered and the customer's
 * line answered, and the call was not abandoned, nor a machine hung up on
 * (PRODUCT.md §13, docs/campaigns.md "Figures").
 */
export const CONNECTED_SQL = "(agent_answered_at IS NOT NULL AND answered_by IS NOT NULL AND (outcome IS NULL OR outcome = 'answered'))";

/** A person answered (an abandon the switch declared without `call.connected` is a person too); machine answers are not. */
export const HUMAN_SQL = "(answered_by = 'human' OR (outcome = 'abandoned' AND answered_by IS NULL))";

/** One dial of the range, as report/campaign reads it. */
export interface DialFacts {
  campaign_id: number;
  dialled_at: number;
  connected_at: number | null;
  answered_by: string | null;
  agent_answered_at: number | null;
  ended_at: number | null;
  outcome: string | null;
  disposition: string | null;
  wrap_secs: number;
}

/** The SQL of the campaign figures (queue/count `campId[]`, report/campaign). */
export class FiguresRepository {
  constructor(private readonly t: TenantQueries) {}

  /** Per campaign, dials from `since`: dialled, abandoned, connected to an agent. */
  dialsSince(since: number): Promise<Array<{ campaign_id: number; dialled: number; abandoned: number | null; connected: number | null }>> {
    return this.t.all(
      `SELECT campaign_id, COUNT(*) AS dialled,
              SUM(CASE WHEN outcome = 'abandoned' THEN 1 ELSE 0 END) AS abandoned,
              SUM(CASE WHEN ${CONNECTED_SQL} THEN 1 ELSE 0 END) AS connected
       FROM campaign_calls WHERE account_id = $1 AND dialled_at >= $2 GROUP BY campaign_id`,
      [since],
    );
  }

  /** Per campaign, calls in progress now. */
  inProgress(): Promise<Array<{ campaign_id: number; n: number }>> {
    return this.t.all('SELECT campaign_id, COUNT(*) AS n FROM campaign_calls WHERE account_id = $1 AND ended_at IS NULL GROUP BY campaign_id');
  }

  /** The dials of [from, to) (of one campaign, or all), in dial order. */
  dials(from: number, to: number, campaignId: number | null): Promise<DialFacts[]> {
    const one = campaignId === null ? '' : ' AND campaign_id = $4';
    return this.t.all<DialFacts>(
      `SELECT campaign_id, dialled_at, connected_at, answered_by, agent_answered_at, ended_at, outcome, disposition, wrap_secs
       FROM campaign_calls WHERE account_id = $1 AND dialled_at >= $2 AND dialled_at < $3${one} ORDER BY dialled_at`,
      campaignId === null ? [from, to] : [from, to, campaignId],
    );
  }

  /** The dials among `callIds`: what their push reports say of the campaign. */
  dialsOf(
    callIds: readonly string[],
  ): Promise<Array<{ call_id: string; campaign_id: number; contact_id: number; retry_of: string | null; outcome: string | null; disposition: string | null }>> {
    if (callIds.length === 0) return Promise.resolve([]);
    const l = inList(this.t, 'call_id', 2, callIds);
    return this.t.all(`SELECT call_id, campaign_id, contact_id, retry_of, outcome, disposition FROM campaign_calls WHERE account_id = $1 AND ${l.sql}`, [
      l.param,
    ]);
  }

  /** Of `callIds`, the calls an agent answered whose disposition is not set yet. */
  async awaitingDisposition(callIds: readonly string[]): Promise<string[]> {
    if (callIds.length === 0) return [];
    const l = inList(this.t, 'call_id', 2, callIds);
    const rows = await this.t.all<{ call_id: string }>(
      `SELECT call_id FROM campaign_calls WHERE account_id = $1 AND ${l.sql} AND outcome = 'answered' AND disposition IS NULL`,
      [l.param],
    );
    return rows.map((r) => r.call_id);
  }
}
