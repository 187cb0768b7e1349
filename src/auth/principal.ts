import type { Permission } from './permissions.js';

export type PrincipalKind = 'client' | 'agent' | 'switch';

/** Who is calling, resolved once per request from its credentials and passed explicitly. */
export interface Principal {
  kind: PrincipalKind;
  accountId: number;
  /** The `userId` of the `userId`+`token` form for this principal. */
  userId: string;
  /** Set for agent principals. */
  agentId: number | null;
  /** The operator account (created at first start) may create tenants. */
  isOperator: boolean;
  permissions: ReadonlySet<Permission>;
  /** can_see = 1: sees every agent of the account; else only those below it in the parent tree. */
  canSee: boolean;
  credential: { type: 'session' | 'token'; hash: string };
}

/** The `userId` string of a principal: the account id for clients, `agent-<id>` for agents. */
export function userIdOf(accountId: number, agentId: number | null): string {
  return agentId === null ? String(accountId) : `agent-${agentId}`;
}

/**
 * Visibility of agents (PRODUCT.md §4): null when the principal sees every
 * agent of its account, else the agent id whose descendants (in the `parent`
 * path) it may see. Repositories turn it into
 * `parent_path LIKE '%,<id>,%'`.
 */
export function visibleSubtreeOf(p: Principal): number | null {
  return p.kind === 'agent' && !p.canSee ? p.agentId : null;
}
