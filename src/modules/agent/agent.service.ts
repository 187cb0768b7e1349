import type { Static } from '@sinclair/typebox';
import type { AuthService } from '../../auth/auth.service.js';
import { visibleSubtreeOf, type Principal } from '../../auth/principal.js';
import { hashPassword } from '../../auth/secrets.js';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database, Queryable } from '../../db/types.js';
import { agentError } from '../../errors/catalogue.js';
import type { DidService } from '../did/did.service.js';
import type { GroupService } from '../group/group.service.js';
import type { RoleService } from '../role/role.service.js';
import { AGENT_LOCK_MS, agentLockKey, withAgentLocks } from './agent-locks.js';
import { AgentRepository, LoginNameRepository, type AgentFields, type AgentRef, type AgentRow } from './agent.repository.js';
import * as rules from './agent.rules.js';
import type { CreateAgentBody, UpdateAgentBody } from './agent.schemas.js';
import { toId } from '../../http/ids.js';

export type { AgentRef };
type CreateInput = Static<typeof CreateAgentBody>;
type UpdateInput = Static<typeof UpdateAgentBody>;

export const ROOT_PATH = ',START,';
// Re-exported: tests and other modules name agent locks through the agent service.
export { AGENT_LOCK_MS, agentLockKey };

const isUniqueViolation = (err: unknown) => /unique|duplicate/i.test(String((err as Error)?.message));

export interface AgentServiceDeps {
  db: Database;
  clock: Clock;
  /** Told when logins or rights change, so credential caches drop them on every node. */
  auth: AuthService;
  roles: RoleService;
  groups: GroupService;
  dids: DidService;
}

/** Agents of an account: lookups for other modules and the administration of PRODUCT.md §5. */
export class AgentService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly auth: AuthService;

  constructor(private readonly deps: AgentServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.auth = deps.auth;
  }

  private repo(accountId: number, q: Queryable = this.db) {
    return new AgentRepository(tenant(q, accountId));
  }

  /** A non-deleted agent of the account, or undefined (a foreign id looks exactly like a missing one). */
  find(accountId: number, agentId: number): Promise<AgentRef | undefined> {
    return this.repo(accountId).find(agentId);
  }

  /** Phones by agent id (deleted agents included), read with `q` (a transaction) or the database. */
  async phones(accountId: number, ids: number[], q?: Queryable): Promise<Map<number, string>> {
    const rows = await this.repo(accountId, q ?? this.db).phones(ids);
    return new Map(rows.map((r) => [Number(r.id), r.phone]));
  }

  /** Ids of the group's agents (the campaign dialer counts their live states). */
  groupMembers(accountId: number, groupId: number): Promise<number[]> {
    return this.repo(accountId).groupMembers(groupId);
  }

  /** groupMembers of several groups in one read (the dialer's tick of an account's campaigns). */
  membersOfGroups(accountId: number, groupIds: readonly number[]): Promise<Map<number, number[]>> {
    return this.repo(accountId).membersOfGroups(groupIds);
  }

  /** The groups an agent is mapped to (switch queues of the agent desk's state commands). */
  async groupIdsOf(accountId: number, agentId: number): Promise<number[]> {
    return (await this.repo(accountId).groupsOf([agentId])).map((r) => Number(r.group_id));
  }

  inGroup(accountId: number, agentId: number, groupId: number): Promise<boolean> {
    return this.repo(accountId).inGroup(agentId, groupId);
  }

  /** Every non-deleted agent's SIP destination and phone (switch/config: what a switch connector maps queue members with). */
  async destinations(accountId: number) {
    const rows = await this.repo(accountId).list({});
    return rows.map((r) => ({ agentId: Number(r.id), name: r.name, dest_type: r.dest_type, dest_value: r.dest_value, phone: r.phone }));
  }

  /** A non-deleted agent the principal may see (can_see 0: itself and the agents below it). */
  async visible(principal: Principal, agentId: number): Promise<AgentRow | undefined> {
    const rows = await this.repo(principal.accountId).list({ agentId, subtreeOf: visibleSubtreeOf(principal) });
    return rows[0];
  }

  /**
   * The parent of a created or re-parented agent: 1504 unless it is an agent
   * the caller sees. No parent: a root agent, or, for a caller that only sees
   * its own subtree, the caller itself (it may not create agents it cannot see).
   */
  private async parentFor(principal: Principal, raw: CreateInput['parent']): Promise<{ parentId: number | null; parentPath: string }> {
    let parentId = raw === undefined || raw === null || raw === '' || toId(raw) === 0 ? null : toId(raw);
    if (parentId === null && visibleSubtreeOf(principal) !== null) parentId = principal.agentId;
    if (parentId === null) return { parentId: null, parentPath: ROOT_PATH };
    const parent = await this.visible(principal, parentId);
    if (!parent) throw agentError(1504, `agent ${parentId} is not a parent you can use`);
    return { parentId, parentPath: `${parent.parent_path}${parentId},` };
  }

  /** 1503 for an unknown role; 1015 when an agent caller would hand out rights it does not hold. */
  private checkRole(principal: Principal, roleId: number) {
    return this.deps.roles.checkAssignable(principal, roleId);
  }

  /**
   * An agent caller may change the e-mail or password (the login) of an agent
   * only when it could give that agent its current role: otherwise it could
   * log in as an agent with more rights than its own (1015). A deleted role
   * grants nothing, so it is no obstacle.
   */
  private async checkLoginChange(principal: Principal, roleId: number | null) {
    if (principal.kind !== 'agent' || roleId === null) return;
    const roles = this.deps.roles;
    if (await roles.exists(principal.accountId, roleId)) await roles.checkAssignable(principal, roleId);
  }

  private async checkGroups(accountId: number, groups: Array<{ groupId: number }>) {
    const missing = await this.deps.groups.missing(
      accountId,
      groups.map((g) => g.groupId),
    );
    if (missing.length > 0) throw agentError(1505, `group ${missing[0]} does not exist`);
  }

  private async checkDids(accountId: number, dids: string[]) {
    const foreign = await this.deps.dids.notOwned(accountId, dids);
    if (foreign.length > 0) throw agentError(1516, `${foreign[0]} is not a DID of this account`);
  }

  private async checkEmail(email: string, exceptAgent: number) {
    if (await new LoginNameRepository(this.db).taken(email, exceptAgent)) throw agentError(1512, `${email} is taken`);
  }

  async create(principal: Principal, input: CreateInput): Promise<number> {
    const accountId = principal.accountId;
    const type = rules.destType(input.dest_type);
    const fields: Omit<AgentFields, 'parentId' | 'parentPath'> = {
      name: rules.agentName(input.name),
      email: rules.agentEmail(input.email),
      phone: rules.agentPhone(input.phone),
      address: input.address?.trim() ?? '',
      callPass: rules.callPass(input.call_pass),
      destType: type,
      destValue: rules.destValue(type, input.dest_value),
      roleId: toId(input.role),
      allowDid: '',
      favorite: input.favorite === undefined ? '' : rules.favorite(input.favorite),
      working: JSON.stringify(input.working ? rules.workingRules(input.working) : []),
      status: input.status ?? 1,
    };
    const groups = input.group ? rules.groupMapping(input.group) : [];
    const dids = input.allowDid === undefined ? [] : rules.allowDidList(input.allowDid);
    fields.allowDid = dids.join(',');
    await this.checkRole(principal, toId(input.role));
    const parent = await this.parentFor(principal, input.parent);
    await this.checkGroups(accountId, groups);
    await this.checkDids(accountId, dids);
    await this.checkEmail(fields.email, 0);
    const passwordHash = await hashPassword(input.password);
    try {
      return await (this.db as Database).transaction(async (tx) => {
        const repo = this.repo(accountId, tx);
        const id = await repo.insert(
          { ...fields, ...parent },
          { passwordHash, now: Math.floor(this.clock.now() / 1000), createBy: principal.userId, createByType: principal.kind },
        );
        await repo.mapGroups(id, groups);
        return id;
      });
    } catch (err) {
      // Two creations racing for one e-mail: the unique index decides.
      if (isUniqueViolation(err)) throw agentError(1512, `${fields.email} is taken`);
      throw err;
    }
  }

  /**
   * Runs a whole request holding these agents' locks (Operation.around), or
   * answers 1501 at once when another request holds any of them.
   */
  async whileLocked<T>(agentIds: number[], fn: () => Promise<T>): Promise<T> {
    const done = await withAgentLocks(this.db, agentIds, fn);
    if (!done)
      throw agentError(
        1501,
        agentIds.length === 1 ? `agent ${agentIds[0]} is being changed by another request` : 'some of these agents are being changed by another request; retry',
      );
    return done.value;
  }

  /** Merge update under the agent's lock (1501 while another change to it runs). */
  async update(principal: Principal, input: UpdateInput): Promise<void> {
    const accountId = principal.accountId;
    const agentId = toId(input.agentId);
    // Field rules first: they need no lock.
    const groups = input.group ? rules.groupMapping(input.group) : [];
    const dids = input.allowDid === undefined ? undefined : rules.allowDidList(input.allowDid);
    const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
    const done = await withAgentLocks(this.db, [agentId], async () => {
      const cur = await this.visible(principal, agentId);
      if (!cur) throw agentError(1509, `agent ${agentId}`);
      if (input.password !== undefined || input.email !== undefined) await this.checkLoginChange(principal, cur.role_id === null ? null : Number(cur.role_id));
      const type = input.dest_type === undefined ? (cur.dest_type as 'MOBILE' | 'SIP') : rules.destType(input.dest_type);
      const next: AgentFields = {
        name: input.name === undefined ? cur.name : rules.agentName(input.name),
        email: input.email === undefined ? cur.email : rules.agentEmail(input.email),
        phone: input.phone === undefined ? cur.phone : rules.agentPhone(input.phone),
        address: input.address === undefined ? cur.address : input.address.trim(),
        callPass: input.call_pass === undefined ? cur.call_pass : rules.callPass(input.call_pass),
        destType: type,
        // A changed type must come with a destination valid for it; an unchanged value is checked against the new type.
        destValue: rules.destValue(type, input.dest_value ?? cur.dest_value),
        roleId: input.role === undefined ? (cur.role_id === null ? null : Number(cur.role_id)) : toId(input.role),
        parentId: cur.parent_id === null ? null : Number(cur.parent_id),
        parentPath: cur.parent_path,
        allowDid: dids === undefined ? cur.allow_did : dids.join(','),
        favorite: input.favorite === undefined ? cur.favorite : rules.favorite(input.favorite),
        working: input.working === undefined ? cur.working : JSON.stringify(rules.workingRules(input.working)),
        status: input.status ?? cur.status,
      };
      if (input.role !== undefined) await this.checkRole(principal, toId(input.role));
      if (input.parent !== undefined) {
        const parent = await this.parentFor(principal, input.parent);
        if (parent.parentId === agentId || parent.parentPath.includes(`,${agentId},`)) {
          throw agentError(1506, 'the parent is the agent itself or one of its descendants');
        }
        Object.assign(next, parent);
      }
      await this.checkGroups(accountId, groups);
      if (dids) await this.checkDids(accountId, dids);
      if (next.email !== cur.email) await this.checkEmail(next.email, agentId);
      await (this.db as Database).transaction(async (tx) => {
        const repo = this.repo(accountId, tx);
        await repo.update(agentId, next);
        if (passwordHash) await repo.setPassword(agentId, passwordHash);
        if (next.parentPath !== cur.parent_path) await repo.movePaths(`${cur.parent_path}${agentId},`, `${next.parentPath}${agentId},`);
        await repo.mapGroups(agentId, groups);
      });
    }).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw agentError(1512, 'the e-mail is taken');
      throw err;
    });
    if (!done) throw agentError(1501, `agent ${agentId} is being changed by another request`);
    await this.auth.invalidateAccount(accountId);
  }

  /** Soft delete (isDeleted and preDeleted set); its children move up to its parent. */
  async remove(principal: Principal, agentId: number): Promise<void> {
    const done = await withAgentLocks(this.db, [agentId], async () => {
      const cur = await this.visible(principal, agentId);
      if (!cur) throw agentError(1509, `agent ${agentId}`);
      await (this.db as Database).transaction((tx) => this.repo(principal.accountId, tx).softDelete(agentId, cur.parent_id));
    });
    if (!done) throw agentError(1501, `agent ${agentId} is being changed by another request`);
    await this.auth.invalidateAccount(principal.accountId);
  }

  /** updateAgentGroupMapping: the listed groups are overwritten, the others stay. */
  async mapGroups(principal: Principal, agentId: number, group: Record<string, { receive_call: string }>): Promise<void> {
    const groups = rules.groupMapping(group);
    if (groups.length === 0) throw agentError(1505, 'group lists no group');
    const done = await withAgentLocks(this.db, [agentId], async () => {
      if (!(await this.visible(principal, agentId))) throw agentError(1509, `agent ${agentId}`);
      await this.checkGroups(principal.accountId, groups);
      await (this.db as Database).transaction((tx) => this.repo(principal.accountId, tx).mapGroups(agentId, groups));
    });
    if (!done) throw agentError(1501, `agent ${agentId} is being changed by another request`);
  }
}
