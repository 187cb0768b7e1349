import type { TenantQueries } from '../../db/tenant.js';

export type StickyScope = 'all' | 'cli' | 'cli_group';

/** One sticky setting. Its key is contact + scope + cli ('' unless cli/cli_group) + groupId (0 unless cli_group). */
export interface StickyRow {
  scope: StickyScope;
  cli: string;
  groupId: number;
  agentId: number;
  expiry: number;
}

interface Raw {
  scope: StickyScope;
  cli: string;
  group_id: number;
  agent_id: number;
  expiry: number;
}

const toRow = (r: Raw): StickyRow => ({ scope: r.scope, cli: r.cli, groupId: Number(r.group_id), agentId: Number(r.agent_id), expiry: Number(r.expiry) });

/** Most specific scope first: cli_group, cli, all. */
const ORDER = `ORDER BY CASE scope WHEN 'cli_group' THEN 0 WHEN 'cli' THEN 1 ELSE 2 END, cli, group_id`;

export class StickyRepository {
  constructor(private readonly t: TenantQueries) {}

  /** Sets the key's agent and expiry (replacing an earlier setting of the same key). */
  async upsert(contact: string, s: StickyRow, now: number): Promise<void> {
    await this.t.run(
      `INSERT INTO sticky_agents (account_id, contact, scope, cli, group_id, agent_id, expiry, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (account_id, contact, scope, cli, group_id) DO UPDATE SET agent_id = excluded.agent_id, expiry = excluded.expiry, created_at = excluded.created_at`,
      [contact, s.scope, s.cli, s.groupId, s.agentId, s.expiry, now],
    );
  }

  /** The contact's settings that have not expired at `nowSec` (-1 never expires), most specific first. */
  async active(contact: string, nowSec: number): Promise<StickyRow[]> {
    const rows = await this.t.all<Raw>(
      `SELECT scope, cli, group_id, agent_id, expiry FROM sticky_agents
       WHERE account_id = $1 AND contact = $2 AND (expiry = -1 OR expiry > $3) ${ORDER}`,
      [contact, nowSec],
    );
    return rows.map(toRow);
  }

  /** Every setting of the contact, expired ones included (removal cleans those up too). */
  async all(contact: string): Promise<StickyRow[]> {
    const rows = await this.t.all<Raw>(`SELECT scope, cli, group_id, agent_id, expiry FROM sticky_agents WHERE account_id = $1 AND contact = $2 ${ORDER}`, [
      contact,
    ]);
    return rows.map(toRow);
  }

  async remove(contact: string, s: Pick<StickyRow, 'scope' | 'cli' | 'groupId'>): Promise<void> {
    await this.t.run('DELETE FROM sticky_agents WHERE account_id = $1 AND contact = $2 AND scope = $3 AND cli = $4 AND group_id = $5', [
      contact,
      s.scope,
      s.cli,
      s.groupId,
    ]);
  }
}
