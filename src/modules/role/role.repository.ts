import type { TenantQueries } from '../../db/tenant.js';
import type { Param } from '../../db/types.js';

export interface RoleRow {
  id: number;
  name: string;
  permissions: string;
  can_see: number;
  status: number;
  is_deleted: number;
  create_date: number;
  create_by: string;
  create_by_type: string;
  ag_count: number;
}

export interface RoleFilter {
  /** 'active' / 'inactive': non-deleted with status 1 / 0; 'deleted': deleted; undefined: every non-deleted role. */
  status?: 'active' | 'inactive' | 'deleted';
  nameContains?: string;
  createdFrom?: number;
  createdTo?: number;
  /** Only the role held by this agent. */
  heldByAgent?: number;
  /** With heldByAgent: the agent must be this one or below it (a can_see 0 caller). */
  agentWithin?: number | null;
}

const COLUMNS = `r.id, r.name, r.permissions, r.can_see, r.status, r.is_deleted, r.create_date, r.create_by, r.create_by_type`;

/** Escapes LIKE wildcards so a name filter matches literally. */
function likeContains(s: string): string {
  return `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export class RoleRepository {
  constructor(private readonly t: TenantQueries) {}

  async insert(r: { name: string; permissions: string; canSee: number; status: number; now: number; createBy: string; createByType: string }) {
    const row = await this.t.get<{ id: number }>(
      `INSERT INTO roles (account_id, name, permissions, can_see, status, create_date, create_by, create_by_type)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [r.name, r.permissions, r.canSee, r.status, r.now, r.createBy, r.createByType],
    );
    return Number(row!.id);
  }

  /** A non-deleted role of the account. */
  find(roleId: number) {
    return this.t.get<Omit<RoleRow, 'ag_count'>>(`SELECT ${COLUMNS} FROM roles r WHERE r.account_id = $1 AND r.id = $2 AND r.is_deleted = 0`, [roleId]);
  }

  update(roleId: number, r: { name: string; permissions: string; canSee: number; status: number }) {
    return this.t.run('UPDATE roles SET name = $3, permissions = $4, can_see = $5, status = $6 WHERE account_id = $1 AND id = $2 AND is_deleted = 0', [
      roleId,
      r.name,
      r.permissions,
      r.canSee,
      r.status,
    ]);
  }

  /** The row stays, flagged deleted (role/list with status "deleted" shows it). */
  async softDelete(roleId: number): Promise<boolean> {
    const res = await this.t.run('UPDATE roles SET is_deleted = 1 WHERE account_id = $1 AND id = $2 AND is_deleted = 0', [roleId]);
    return res.changes === 1;
  }

  private where(f: RoleFilter): { sql: string; params: Param[] } {
    const conds = ['r.account_id = $1'];
    const params: Param[] = [];
    const p = (v: Param) => (params.push(v), `$${params.length + 1}`);
    if (f.status === 'deleted') conds.push('r.is_deleted = 1');
    else conds.push('r.is_deleted = 0');
    if (f.status === 'active') conds.push('r.status = 1');
    if (f.status === 'inactive') conds.push('r.status = 0');
    if (f.nameContains !== undefined) conds.push(`LOWER(r.name) LIKE ${p(likeContains(f.nameContains))} ESCAPE '\\'`);
    if (f.createdFrom !== undefined) conds.push(`r.create_date >= ${p(f.createdFrom)}`);
    if (f.createdTo !== undefined) conds.push(`r.create_date <= ${p(f.createdTo)}`);
    if (f.heldByAgent !== undefined) {
      const within =
        f.agentWithin === undefined || f.agentWithin === null ? '' : ` AND (a.id = ${p(f.agentWithin)} OR a.parent_path LIKE ${p(`%,${f.agentWithin},%`)})`;
      conds.push(`r.id IN (SELECT a.role_id FROM agents a WHERE a.account_id = $1 AND a.id = ${p(f.heldByAgent)} AND a.is_deleted = 0${within})`);
    }
    return { sql: conds.join(' AND '), params };
  }

  async count(f: RoleFilter): Promise<number> {
    const w = this.where(f);
    const row = await this.t.get<{ n: number }>(`SELECT COUNT(*) AS n FROM roles r WHERE ${w.sql}`, w.params);
    return Number(row?.n ?? 0);
  }

  /** One page of roles, oldest first, with the number of non-deleted agents holding each. */
  page(f: RoleFilter, limit: number, offset: number) {
    const w = this.where(f);
    const n = w.params.length;
    return this.t.all<RoleRow>(
      `SELECT ${COLUMNS},
              (SELECT COUNT(*) FROM agents a WHERE a.account_id = r.account_id AND a.role_id = r.id AND a.is_deleted = 0) AS ag_count
       FROM roles r WHERE ${w.sql} ORDER BY r.id LIMIT $${n + 2} OFFSET $${n + 3}`,
      [...w.params, limit, offset],
    );
  }
}
