import type { AuthService } from '../../auth/auth.service.js';
import { isPermission, type Permission } from '../../auth/permissions.js';
import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { agentError, fail } from '../../errors/catalogue.js';
import { RoleRepository, type RoleFilter, type RoleRow } from './role.repository.js';

export interface RoleInput {
  name?: string;
  permissions?: string[];
  can_see?: number;
  status?: number;
}

export interface RoleRecord {
  _id: string;
  name: string;
  can_see: number;
  create_date: number;
  create_by: string;
  create_by_type: string;
  status: number;
  user_id: string;
  unique_id: number;
  agCount: number;
  permissions: string[];
}

/** role/list's documented maximum page size. */
export const MAX_ROLE_PAGE = 100;

function parsePermissions(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
}

export interface RoleServiceDeps {
  db: Queryable;
  clock: Clock;
  auth?: AuthService;
}

/** Roles of an account: a set of permissions (PRODUCT.md §4) and a visibility setting. */
export class RoleService {
  private readonly db: Queryable;
  private readonly clock: Clock;
  private readonly auth?: AuthService;

  constructor({ db, clock, auth }: RoleServiceDeps) {
    this.db = db;
    this.clock = clock;
    this.auth = auth;
  }

  private repo(accountId: number) {
    return new RoleRepository(tenant(this.db, accountId));
  }

  /** True when the role exists in the account and is not deleted. */
  async exists(accountId: number, roleId: number): Promise<boolean> {
    return (await this.repo(accountId).find(roleId)) !== undefined;
  }

  /**
   * An agent principal may not hand out more than it holds itself (1015), so
   * a role or agent manager cannot raise its own rights or anyone else's.
   */
  private checkWithinOwn(principal: Principal, permissions: readonly string[], canSee: number | undefined, what: string): void {
    if (principal.kind !== 'agent') return;
    for (const p of permissions) {
      if (!principal.permissions.has(p as Permission)) throw fail(1015, `cannot ${what} ${p}: missing permission ${p}`);
    }
    if (canSee === 1 && !principal.canSee) throw fail(1015, `cannot ${what} can_see 1 without holding it`);
  }

  /** The permission list of a role write: every entry one of §4 (else 1503), none beyond the caller's own. */
  private checkGrant(principal: Principal, input: RoleInput): void {
    for (const p of input.permissions ?? []) if (!isPermission(p)) throw agentError(1503, `unknown permission ${JSON.stringify(p)}`);
    this.checkWithinOwn(principal, input.permissions ?? [], input.can_see, 'grant');
  }

  /** A role the principal may give an agent: it exists (else 1503) and grants nothing the caller lacks (else 1015). */
  async checkAssignable(principal: Principal, roleId: number): Promise<void> {
    const role = await this.repo(principal.accountId).find(roleId);
    if (!role) throw agentError(1503, `role ${roleId}`);
    this.checkWithinOwn(principal, parsePermissions(role.permissions), Number(role.can_see), 'assign a role with');
  }

  async create(principal: Principal, input: Required<Pick<RoleInput, 'name' | 'permissions'>> & RoleInput): Promise<number> {
    this.checkGrant(principal, input);
    const id = await this.repo(principal.accountId).insert({
      name: input.name,
      permissions: JSON.stringify([...new Set(input.permissions)]),
      canSee: input.can_see ?? 1,
      status: input.status ?? 1,
      now: Math.floor(this.clock.now() / 1000),
      createBy: principal.userId,
      createByType: principal.kind,
    });
    return id;
  }

  /** Merge update; 1503 for an unknown or deleted role. */
  async update(principal: Principal, roleId: number, input: RoleInput): Promise<void> {
    this.checkGrant(principal, input);
    const repo = this.repo(principal.accountId);
    const current = await repo.find(roleId);
    if (!current) throw agentError(1503, `role ${roleId}`);
    const res = await repo.update(roleId, {
      name: input.name ?? current.name,
      permissions: input.permissions ? JSON.stringify([...new Set(input.permissions)]) : current.permissions,
      canSee: input.can_see ?? current.can_see,
      status: input.status ?? current.status,
    });
    if (res.changes !== 1) throw agentError(1503, `role ${roleId}`);
    await this.auth?.invalidateAccount(principal.accountId);
  }

  async remove(accountId: number, roleId: number): Promise<void> {
    if (!(await this.repo(accountId).softDelete(roleId))) throw agentError(1503, `role ${roleId}`);
    await this.auth?.invalidateAccount(accountId);
  }

  async list(accountId: number, filter: RoleFilter, page: number, limit: number) {
    const repo = this.repo(accountId);
    const totalRecords = await repo.count(filter);
    const rows = await repo.page(filter, limit, (page - 1) * limit);
    return {
      response: rows.map((r) => this.record(accountId, r)),
      currentPage: page,
      totalPages: Math.ceil(totalRecords / limit),
      totalRecords,
    };
  }

  private record(accountId: number, r: RoleRow): RoleRecord {
    return {
      _id: String(r.id),
      name: r.name,
      can_see: Number(r.can_see),
      create_date: Number(r.create_date),
      create_by: r.create_by,
      create_by_type: r.create_by_type,
      status: Number(r.status),
      user_id: String(accountId),
      unique_id: Number(r.id),
      agCount: Number(r.ag_count),
      permissions: parsePermissions(r.permissions),
    };
  }
}
