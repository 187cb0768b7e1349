import type { TenantQueries } from '../../db/tenant.js';

export interface OriginatedCall {
  callId: string;
  agentId: number;
  agentNumber: string;
  customer: string;
  did: string | null;
  campaignId: string | null;
  callFirst: 'agent' | 'customer';
  agentCli: string | null;
  createdAt: number;
}

/** The originated (click-to-call) calls of one account. */
export class SwitchRepository {
  constructor(private readonly t: TenantQueries) {}

  async insertOriginated(c: OriginatedCall): Promise<void> {
    await this.t.run(
      `INSERT INTO originated_calls (account_id, call_id, agent_id, agent_number, customer, did, campaign_id, call_first, agent_cli, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [c.callId, c.agentId, c.agentNumber, c.customer, c.did, c.campaignId, c.callFirst, c.agentCli, c.createdAt],
    );
  }

  /** Of `callIds`, those placed by click-to-call. */
  async originatedAmong(callIds: string[]): Promise<Set<string>> {
    if (callIds.length === 0) return new Set();
    const rows = await this.t.all<{ call_id: string }>(
      `SELECT call_id FROM originated_calls WHERE account_id = $1 AND call_id IN (${callIds.map((_, i) => `$${i + 2}`).join(', ')})`,
      callIds,
    );
    return new Set(rows.map((r) => r.call_id));
  }
}
