import { visibleSubtreeOf, type Principal } from '../../auth/principal.js';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { fail } from '../../errors/catalogue.js';
import type { GroupService } from '../group/group.service.js';
import { AgentRepository, type AgentRow } from './agent.repository.js';
import type { WorkingRule } from './agent.rules.js';

export interface AgentListQuery {
  agentId?: number;
  name?: string;
  groupId?: number;
  quick?: boolean;
}

/** Mappings are read in chunks so a large account stays within every driver's parameter limit. */
const CHUNK = 500;

export interface AgentListServiceDeps {
  db: Queryable;
  groups: GroupService;
}

/** Agent/list: the spec's agent records, limited to what the caller may see. */
export class AgentListService {
  private readonly db: Queryable;
  private readonly groups: GroupService;

  constructor({ db, groups }: AgentListServiceDeps) {
    this.db = db;
    this.groups = groups;
  }

  async list(principal: Principal, q: AgentListQuery) {
    const accountId = principal.accountId;
    const groups = this.groups;
    if (q.groupId !== undefined && !(await groups.exists(accountId, q.groupId))) throw fail(1006, `group ${q.groupId}`);
    const repo = new AgentRepository(tenant(this.db, accountId));
    const rows = await repo.list({
      agentId: q.agentId,
      nameContains: q.name === undefined || q.name === '' ? undefined : q.name,
      groupId: q.groupId,
      subtreeOf: visibleSubtreeOf(principal),
    });
    const mapping = new Map<number, Array<{ groupId: number; receiveCall: string }>>();
    for (let i = 0; i < rows.length; i += CHUNK) {
      for (const m of await repo.groupsOf(rows.slice(i, i + CHUNK).map((r) => Number(r.id)))) {
        const id = Number(m.agent_id);
        if (!mapping.has(id)) mapping.set(id, []);
        mapping.get(id)!.push({ groupId: Number(m.group_id), receiveCall: m.receive_call });
      }
    }
    if (q.quick) {
      return rows.map((r) => ({
        unique_id: Number(r.id),
        nm: r.name,
        email: r.email,
        phone: r.phone,
        dest_type: r.dest_type,
        dest_value: r.dest_value,
        group: (mapping.get(Number(r.id)) ?? []).map((g) => g.groupId),
        status: Number(r.status),
      }));
    }
    const allGroupIds = [...new Set([...mapping.values()].flat().map((g) => g.groupId))];
    const names = await groups.names(accountId, allGroupIds);
    const showCallPass = seesCallPass(principal);
    return rows.map((r) => record(accountId, r, mapping.get(Number(r.id)) ?? [], names, showCallPass));
  }
}

/**
 * The call password is a credential (it authenticates the agent on the
 * phone), so Agent/list shows it only to those who may set it: holders of
 * `agent.manage` (clients hold every permission). Everyone else reads "", as
 * for `password`.
 */
export function seesCallPass(principal: Principal): boolean {
  return principal.permissions.has('agent.manage');
}

function record(accountId: number, r: AgentRow, groups: Array<{ groupId: number; receiveCall: string }>, names: Map<number, string>, showCallPass: boolean) {
  const id = Number(r.id);
  const working = JSON.parse(r.working) as WorkingRule[];
  return {
    name: r.name,
    favorite: r.favorite,
    email: r.email,
    phone: r.phone,
    address: r.address,
    dest_type: r.dest_type,
    dest_value: r.dest_value,
    call_pass: showCallPass ? r.call_pass : '',
    password: '' as const,
    role: r.role_id === null ? '' : String(r.role_id),
    roleName: r.role_name ?? '',
    parent: r.parent_path,
    create_date: Number(r.create_date),
    create_by: r.create_by,
    create_by_type: r.create_by_type,
    user_id: String(accountId),
    unique_id: id,
    allowDid: r.allow_did,
    status: Number(r.status),
    isDeleted: Number(r.is_deleted),
    preDeleted: Number(r.pre_deleted),
    cad: Number(r.cad),
    group: groups.map((g) => g.groupId),
    groupNames: groups.map((g) => ({ [String(g.groupId)]: names.get(g.groupId) ?? '' })),
    groupMapping: Object.fromEntries(groups.map((g) => [String(g.groupId), { receive_call: g.receiveCall }])),
    working: working.map((w) => ({ wDays: w.wDays, from: w.from, to: w.to, agentId: id })),
  };
}
