import type { TenantQueries } from '../../db/tenant.js';

export interface GroupRow {
  group_id: number;
  name: string;
  created_at: number;
  agents: number;
}

/** Groups of one account; ids are scoped to the account. */
export class GroupRepository {
  constructor(private readonly t: TenantQueries) {}

  async exists(groupId: number): Promise<boolean> {
    return (await this.t.get('SELECT 1 AS one FROM groups WHERE account_id = $1 AND group_id = $2', [groupId])) !== undefined;
  }

  /** The subset of `groupIds` that exist in the account. */
  async existing(groupIds: number[]): Promise<Set<number>> {
    if (groupIds.length === 0) return new Set();
    const rows = await this.t.all<{ group_id: number }>(
      `SELECT group_id FROM groups WHERE account_id = $1 AND group_id IN (${groupIds.map((_, i) => `$${i + 2}`).join(', ')})`,
      groupIds,
    );
    return new Set(rows.map((r) => Number(r.group_id)));
  }

  /** Group names by id, for the given ids. */
  async names(groupIds: number[]): Promise<Map<number, string>> {
    if (groupIds.length === 0) return new Map();
    const rows = await this.t.all<{ group_id: number; name: string }>(
      `SELECT group_id, name FROM groups WHERE account_id = $1 AND group_id IN (${groupIds.map((_, i) => `$${i + 2}`).join(', ')})`,
      groupIds,
    );
    return new Map(rows.map((r) => [Number(r.group_id), r.name]));
  }

  async nextId(): Promise<number> {
    const row = await this.t.get<{ m: number | null }>('SELECT MAX(group_id) AS m FROM groups WHERE account_id = $1');
    return Number(row?.m ?? 0) + 1;
  }

  /** Inserts the group; false when the id is taken in the account. */
  async insert(groupId: number, name: string, now: number): Promise<boolean> {
    const res = await this.t.run(
      'INSERT INTO groups (account_id, group_id, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, group_id) DO NOTHING',
      [groupId, name, now],
    );
    return res.changes === 1;
  }

  async rename(groupId: number, name: string): Promise<boolean> {
    const res = await this.t.run('UPDATE groups SET name = $3 WHERE account_id = $1 AND group_id = $2', [groupId, name]);
    return res.changes === 1;
  }

  async remove(groupId: number): Promise<boolean> {
    await this.t.run('DELETE FROM agent_groups WHERE account_id = $1 AND group_id = $2', [groupId]);
    const res = await this.t.run('DELETE FROM groups WHERE account_id = $1 AND group_id = $2', [groupId]);
    return res.changes === 1;
  }

  /** Every group with the number of (non-deleted) agents mapped to it. */
  list() {
    return this.t.all<GroupRow>(
      `SELECT g.group_id, g.name, g.created_at,
              (SELECT COUNT(*) FROM agent_groups ag JOIN agents a ON a.account_id = ag.account_id AND a.id = ag.agent_id AND a.is_deleted = 0
               WHERE ag.account_id = g.account_id AND ag.group_id = g.group_id) AS agents
       FROM groups g WHERE g.account_id = $1 ORDER BY g.group_id`,
    );
  }
}
