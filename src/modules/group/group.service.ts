import type { Database, Queryable } from '../../db/types.js';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import { agentError, fail } from '../../errors/catalogue.js';
import { GroupRepository } from './group.repository.js';

export interface GroupView {
  groupId: number;
  name: string;
  create_date: number;
  agentCount: number;
}

export interface GroupServiceDeps {
  db: Queryable;
  clock?: Clock;
}

/** Groups of an account (ids scoped to the account: every tenant may have its own group 55). */
export class GroupService {
  private readonly db: Queryable;
  private readonly clock?: Clock;

  constructor({ db, clock }: GroupServiceDeps) {
    this.db = db;
    this.clock = clock;
  }

  private repo(accountId: number, q: Queryable = this.db) {
    return new GroupRepository(tenant(q, accountId));
  }

  exists(accountId: number, groupId: number): Promise<boolean> {
    return this.repo(accountId).exists(groupId);
  }

  /** The ids of `groupIds` that do not exist in the account (empty when all do). */
  async missing(accountId: number, groupIds: number[]): Promise<number[]> {
    const found = await this.repo(accountId).existing([...new Set(groupIds)]);
    return groupIds.filter((g) => !found.has(g));
  }

  names(accountId: number, groupIds: number[]): Promise<Map<number, string>> {
    return this.repo(accountId).names([...new Set(groupIds)]);
  }

  /** Creates a group with the given id, or the next free one; 1505 when the id is taken. */
  async create(accountId: number, input: { groupId?: number; name: string }): Promise<number> {
    const now = Math.floor((this.clock?.now() ?? Date.now()) / 1000);
    const db = this.db as Database;
    if (input.groupId !== undefined) {
      if (!(await this.repo(accountId).insert(input.groupId, input.name, now))) throw agentError(1505, `group ${input.groupId} already exists`);
      return input.groupId;
    }
    // Next id = max + 1; a concurrent creation taking it makes the insert a no-op, so try again.
    for (let attempt = 0; attempt < 20; attempt++) {
      const id = await db.transaction(async (tx) => {
        const repo = this.repo(accountId, tx);
        const next = await repo.nextId();
        return (await repo.insert(next, input.name, now)) ? next : null;
      });
      if (id !== null) return id;
    }
    throw agentError(1505, 'could not allocate a group id; retry');
  }

  async rename(accountId: number, groupId: number, name: string): Promise<void> {
    if (!(await this.repo(accountId).rename(groupId, name))) throw fail(1006, `group ${groupId}`);
  }

  /** Deletes the group and every agent's mapping to it. */
  async remove(accountId: number, groupId: number): Promise<void> {
    const db = this.db as Database;
    const removed = await db.transaction((tx) => this.repo(accountId, tx).remove(groupId));
    if (!removed) throw fail(1006, `group ${groupId}`);
  }

  async list(accountId: number): Promise<GroupView[]> {
    const rows = await this.repo(accountId).list();
    return rows.map((r) => ({ groupId: Number(r.group_id), name: r.name, create_date: Number(r.created_at), agentCount: Number(r.agents) }));
  }
}
