import type { TenantQueries } from '../../db/tenant.js';
import { AGENT_SELECT, agentFromRow, type AgentRow } from '../events/live-rows.js';
import type { AgentLive } from '../events/live.types.js';

export interface LiveAgentRow {
  id: number;
  name: string;
  email: string;
  phone: string;
  /** null when the agent never had an event (offline). */
  live: AgentLive | null;
}

/**
 * Agent/live reads: the account's agents joined with their live state in one
 * statement (this view is on the hot path, PRODUCT §8), narrowed by group and
 * by the caller's visibility.
 */
export class LiveRepository {
  constructor(private readonly t: TenantQueries) {}

  async agents(groupId: number | null, subtreeOf: number | null): Promise<LiveAgentRow[]> {
    const conds = ['a.account_id = $1', 'a.is_deleted = 0'];
    const params: Array<number | string> = [];
    if (groupId !== null) {
      params.push(groupId);
      conds.push(`a.id IN (SELECT g.agent_id FROM agent_groups g WHERE g.account_id = $1 AND g.group_id = $${params.length + 1})`);
    }
    if (subtreeOf !== null) {
      params.push(subtreeOf, `%,${subtreeOf},%`);
      conds.push(`(a.id = $${params.length} OR a.parent_path LIKE $${params.length + 1})`);
    }
    const rows = await this.t.all<AgentRow & { id: number; name: string; email: string; phone: string }>(
      `SELECT a.id, a.name, a.email, a.phone, ${AGENT_SELECT}
       FROM agents a LEFT JOIN live_agents l ON l.account_id = a.account_id AND l.agent_id = a.id
       WHERE ${conds.join(' AND ')} ORDER BY a.id`,
      params,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      email: r.email,
      phone: r.phone,
      live: r.agent_id === null || r.agent_id === undefined ? null : agentFromRow(r),
    }));
  }
}
