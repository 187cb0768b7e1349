import type { TenantQueries } from '../../db/tenant.js';
import type { Param, Queryable } from '../../db/types.js';
import { inList as valuesIn } from '../../db/in-list.js';

export interface AgentRef {
  id: number;
  name: string;
  status: number;
}

/** Every stored column of an agent but the password hash, with its role's name. */
export interface AgentRow {
  id: number;
  name: string;
  email: string;
  phone: string;
  address: string;
  call_pass: string;
  dest_type: string;
  dest_value: string;
  role_id: number | null;
  role_name: string | null;
  parent_id: number | null;
  parent_path: string;
  allow_did: string;
  favorite: string;
  working: string;
  status: number;
  cad: number;
  is_deleted: number;
  pre_deleted: number;
  create_date: number;
  create_by: string;
  create_by_type: string;
}

/** The columns an agent write sets (create: all; update: the merged record). */
export interface AgentFields {
  name: string;
  email: string;
  phone: string;
  address: string;
  callPass: string;
  destType: string;
  destValue: string;
  /** Null only for rows written outside this module (seeds) without a role. */
  roleId: number | null;
  parentId: number | null;
  parentPath: string;
  allowDid: string;
  favorite: string;
  working: string;
  status: number;
}

export interface AgentListFilter {
  agentId?: number;
  nameContains?: string;
  groupId?: number;
  /** Only this agent and the agents below it (can_see 0). */
  subtreeOf?: number | null;
}

const COLUMNS = `a.id, a.name, a.email, a.phone, a.address, a.call_pass, a.dest_type, a.dest_value, a.role_id, r.name AS role_name,
  a.parent_id, a.parent_path, a.allow_did, a.favorite, a.working, a.status, a.cad, a.is_deleted, a.pre_deleted,
  a.create_date, a.create_by, a.create_by_type`;
const FROM = 'FROM agents a LEFT JOIN roles r ON r.id = a.role_id AND r.account_id = a.account_id';

const inList = (values: readonly unknown[], first: number) => values.map((_, i) => `$${i + first}`).join(', ');

export class AgentRepository {
  constructor(private readonly t: TenantQueries) {}

  /** A non-deleted agent of the account. */
  find(agentId: number) {
    return this.t.get<AgentRef>('SELECT id, name, status FROM agents WHERE account_id = $1 AND id = $2 AND is_deleted = 0', [agentId]);
  }

  /** Ids of the non-deleted agents mapped to the group. */
  async groupMembers(groupId: number): Promise<number[]> {
    const rows = await this.t.all<{ agent_id: number }>(
      `SELECT g.agent_id FROM agent_groups g JOIN agents a ON a.account_id = g.account_id AND a.id = g.agent_id AND a.is_deleted = 0
       WHERE g.account_id = $1 AND g.group_id = $2`,
      [groupId],
    );
    return rows.map((r) => Number(r.agent_id));
  }

  /** Of each group, the ids of the non-deleted agents mapped to it (groups without any are absent). */
  async membersOfGroups(groupIds: readonly number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    if (groupIds.length === 0) return out;
    const list = valuesIn(this.t, 'g.group_id', 2, groupIds);
    const rows = await this.t.all<{ group_id: number; agent_id: number }>(
      `SELECT g.group_id, g.agent_id FROM agent_groups g JOIN agents a ON a.account_id = g.account_id AND a.id = g.agent_id AND a.is_deleted = 0
       WHERE g.account_id = $1 AND ${list.sql}`,
      [list.param],
    );
    for (const r of rows) {
      const members = out.get(Number(r.group_id)) ?? [];
      members.push(Number(r.agent_id));
      out.set(Number(r.group_id), members);
    }
    return out;
  }

  async inGroup(agentId: number, groupId: number): Promise<boolean> {
    const row = await this.t.get('SELECT 1 AS one FROM agent_groups WHERE account_id = $1 AND agent_id = $2 AND group_id = $3', [agentId, groupId]);
    return row !== undefined;
  }

  /** Non-deleted agents matching the filter, by id. */
  list(f: AgentListFilter) {
    const conds = ['a.account_id = $1', 'a.is_deleted = 0'];
    const params: Param[] = [];
    const p = (v: Param) => (params.push(v), `$${params.length + 1}`);
    if (f.agentId !== undefined) conds.push(`a.id = ${p(f.agentId)}`);
    if (f.nameContains !== undefined) {
      conds.push(`LOWER(a.name) LIKE ${p(`%${f.nameContains.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`)} ESCAPE '\\'`);
    }
    if (f.groupId !== undefined) {
      conds.push(`a.id IN (SELECT ag.agent_id FROM agent_groups ag WHERE ag.account_id = $1 AND ag.group_id = ${p(f.groupId)})`);
    }
    if (f.subtreeOf !== undefined && f.subtreeOf !== null) {
      conds.push(`(a.id = ${p(f.subtreeOf)} OR a.parent_path LIKE ${p(`%,${f.subtreeOf},%`)})`);
    }
    return this.t.all<AgentRow>(`SELECT ${COLUMNS} ${FROM} WHERE ${conds.join(' AND ')} ORDER BY a.id`, params);
  }

  /** Non-deleted agents of the account among `ids`. */
  byIds(ids: number[]) {
    if (ids.length === 0) return Promise.resolve([] as AgentRow[]);
    return this.t.all<AgentRow>(`SELECT ${COLUMNS} ${FROM} WHERE a.account_id = $1 AND a.is_deleted = 0 AND a.id IN (${inList(ids, 2)})`, ids);
  }

  /** Phones of the given agents, deleted ones included (call reports name who took past calls). */
  phones(ids: number[]) {
    if (ids.length === 0) return Promise.resolve([] as Array<{ id: number; phone: string }>);
    // One statement text whatever the number of ids (the export asks once per page).
    const list = valuesIn(this.t, 'id', 2, ids);
    return this.t.all<{ id: number; phone: string }>(`SELECT id, phone FROM agents WHERE account_id = $1 AND ${list.sql}`, [list.param]);
  }

  /** Group mappings of the given agents. */
  groupsOf(agentIds: number[]) {
    if (agentIds.length === 0) return Promise.resolve([]);
    return this.t.all<{ agent_id: number; group_id: number; receive_call: string }>(
      `SELECT agent_id, group_id, receive_call FROM agent_groups WHERE account_id = $1 AND agent_id IN (${inList(agentIds, 2)}) ORDER BY group_id`,
      agentIds,
    );
  }

  async insert(f: AgentFields, extra: { passwordHash: string; now: number; createBy: string; createByType: string }): Promise<number> {
    const row = await this.t.get<{ id: number }>(
      `INSERT INTO agents (account_id, name, email, password_hash, phone, address, call_pass, dest_type, dest_value, role_id,
         parent_id, parent_path, allow_did, favorite, working, status, create_date, create_by, create_by_type)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id`,
      [
        f.name,
        f.email,
        extra.passwordHash,
        f.phone,
        f.address,
        f.callPass,
        f.destType,
        f.destValue,
        f.roleId,
        f.parentId,
        f.parentPath,
        f.allowDid,
        f.favorite,
        f.working,
        f.status,
        extra.now,
        extra.createBy,
        extra.createByType,
      ],
    );
    return Number(row!.id);
  }

  update(agentId: number, f: AgentFields) {
    return this.t.run(
      `UPDATE agents SET name = $3, email = $4, phone = $5, address = $6, call_pass = $7, dest_type = $8, dest_value = $9,
         role_id = $10, parent_id = $11, parent_path = $12, allow_did = $13, favorite = $14, working = $15, status = $16
       WHERE account_id = $1 AND id = $2 AND is_deleted = 0`,
      [
        agentId,
        f.name,
        f.email,
        f.phone,
        f.address,
        f.callPass,
        f.destType,
        f.destValue,
        f.roleId,
        f.parentId,
        f.parentPath,
        f.allowDid,
        f.favorite,
        f.working,
        f.status,
      ],
    );
  }

  setPassword(agentId: number, hash: string) {
    return this.t.run('UPDATE agents SET password_hash = $3 WHERE account_id = $1 AND id = $2', [agentId, hash]);
  }

  /**
   * Re-parenting: every descendant's path starts with `oldPrefix` (the moved
   * agent's path plus its id); swap that prefix for `newPrefix`.
   */
  movePaths(oldPrefix: string, newPrefix: string) {
    return this.t.run(
      `UPDATE agents SET parent_path = CAST($2 AS TEXT) || SUBSTR(parent_path, $3)
       WHERE account_id = $1 AND SUBSTR(parent_path, 1, $4) = CAST($5 AS TEXT)`,
      [newPrefix, oldPrefix.length + 1, oldPrefix.length, oldPrefix],
    );
  }

  /** Soft delete; the agent's children move up to its parent and its id leaves every path. */
  async softDelete(agentId: number, parentId: number | null): Promise<boolean> {
    const res = await this.t.run('UPDATE agents SET is_deleted = 1, pre_deleted = 1, cad = 0 WHERE account_id = $1 AND id = $2 AND is_deleted = 0', [agentId]);
    if (res.changes !== 1) return false;
    await this.t.run('UPDATE agents SET parent_id = $3 WHERE account_id = $1 AND parent_id = $2', [agentId, parentId]);
    await this.t.run(`UPDATE agents SET parent_path = REPLACE(parent_path, $2, ',') WHERE account_id = $1 AND parent_path LIKE $3`, [
      `,${agentId},`,
      `%,${agentId},%`,
    ]);
    await this.t.run('DELETE FROM agent_groups WHERE account_id = $1 AND agent_id = $2', [agentId]);
    return true;
  }

  /** Overwrites the listed group mappings; others stay. */
  async mapGroups(agentId: number, groups: Array<{ groupId: number; receiveCall: 'Y' | 'N' }>): Promise<void> {
    for (const g of groups) {
      await this.t.run(
        `INSERT INTO agent_groups (account_id, agent_id, group_id, receive_call) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id, agent_id, group_id) DO UPDATE SET receive_call = excluded.receive_call`,
        [agentId, g.groupId, g.receiveCall],
      );
    }
  }

  setCad(ids: number[], cad: 0 | 1) {
    return this.t.run(`UPDATE agents SET cad = ${cad} WHERE account_id = $1 AND is_deleted = 0 AND id IN (${inList(ids, 2)})`, ids);
  }
}

/**
 * Login names (agent e-mails and client usernames) share one namespace across
 * every account (PRODUCT.md §4: 1512), so this one check reads beyond the
 * tenant, like the auth and account repositories; it only answers yes or no.
 */
export class LoginNameRepository {
  constructor(private readonly db: Queryable) {}

  async taken(email: string, exceptAgent: number): Promise<boolean> {
    const row = await this.db.get(
      `SELECT 1 AS taken FROM agents WHERE email = $1 AND is_deleted = 0 AND id <> $2
       UNION ALL SELECT 1 AS taken FROM accounts WHERE LOWER(username) = $1`,
      [email, exceptAgent],
    );
    return row !== undefined;
  }
}
