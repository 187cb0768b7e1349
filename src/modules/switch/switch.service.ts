import { randomUUID } from 'node:crypto';
import { visibleSubtreeOf, type Principal } from '../../auth/principal.js';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { agentError, fail } from '../../errors/catalogue.js';
import { contactDigits } from '../../http/contact.js';
import type { AccountService } from '../account/account.service.js';
import type { AgentService } from '../agent/agent.service.js';
import { ORIGINATED_CALL_PREFIX } from '../calls/call-record.js';
import { didDigits, type DidService } from '../did/did.service.js';
import type { EventsService } from '../events/events.service.js';
import type { LiveStateService } from '../events/live-state.service.js';
import { agentMessage } from '../events/live.types.js';
import type { GroupService } from '../group/group.service.js';
import { SwitchRepository, type OriginatedCall } from './switch.repository.js';

export interface OriginateInput {
  agentId: number;
  customer: unknown;
  did?: unknown;
  campaignId?: string;
  callFirst?: 'agent' | 'customer';
  agentCli?: string;
}

export interface SwitchDeps {
  db: Queryable;
  clock: Clock;
  agents: AgentService;
  groups: GroupService;
  dids: DidService;
  liveState: LiveStateService;
  events: EventsService;
  accounts: AccountService;
}

/** What an agent asks the switch to make of it (Agent/setState): in its queues and ready, paused, or out of them. */
export type DeskState = 'ready' | 'break' | 'logged_out';

export interface SetStateInput {
  /** Absent: the calling agent itself. */
  agentId?: number;
  state: DeskState;
  reason?: string;
}

/**
 * What switch connectors read (the names they map with, the live state they
 * reconcile with) and click-to-call, which they execute (PRODUCT.md §10).
 */
export class SwitchService {
  private readonly db: Queryable;

  constructor(private readonly deps: SwitchDeps) {
    this.db = deps.db;
  }

  async config(accountId: number) {
    const { groups, agents, dids } = this.deps;
    const [g, a, d] = await Promise.all([groups.list(accountId), agents.destinations(accountId), dids.list(accountId)]);
    return { groups: g.map((x) => ({ groupId: x.groupId, name: x.name })), agents: a, dids: d.map((x) => x.did) };
  }

  async state(accountId: number) {
    const { liveState } = this.deps;
    const [lstSync, calls, agents] = await Promise.all([liveState.sequence(accountId), liveState.calls(accountId), liveState.agents(accountId)]);
    return {
      lstSync,
      calls: calls.map((c) => ({ callId: c.callId, state: c.state, groupId: c.groupId, agentId: c.agentId, ringingAgentId: c.ringAgent })),
      agents: [...agents.values()].map((a) => ({ agentId: a.agentId, loggedIn: a.loggedIn, breakReason: a.breakReason })),
    };
  }

  /** The agent a v3 `agent_number` names: the one whose phone has those digits (visible to the caller), or 1509. */
  async agentByNumber(principal: Principal, raw: unknown): Promise<number> {
    const digits = contactDigits(raw);
    if (digits === null) throw agentError(1509, 'agent_number must be an agent phone number');
    const all = await this.deps.agents.destinations(principal.accountId);
    const found = all.find((a) => a.phone.replace(/\D/g, '') === digits);
    if (!found) throw agentError(1509, `no agent has the phone number ${digits}`);
    return found.agentId;
  }

  /**
   * call/originate: records the call (cType CTC in reports) and pushes the
   * `call.originate` command to the switch connectors on the stream, in one
   * transaction. The connector rings the agent first, then the customer, and
   * reports the call's events under the answered callId.
   */
  async originate(principal: Principal, input: OriginateInput): Promise<{ callId: string }> {
    const accountId = principal.accountId;
    const customer = contactDigits(input.customer);
    if (customer === null) throw fail(1005, 'customer must have 6 to 15 digits');
    let did: string | null = null;
    if (input.did !== undefined && input.did !== null && input.did !== '') {
      did = didDigits(input.did);
      if (did === null) throw agentError(1516, 'did must have 3 to 15 digits');
      if ((await this.deps.dids.notOwned(accountId, [did])).length) throw agentError(1516, `${did} is not a DID of this account`);
    }
    const agent = await this.deps.agents.visible(principal, input.agentId);
    if (!agent) throw agentError(1509, `agent ${input.agentId}${visibleSubtreeOf(principal) !== null ? ' (or not one you may see)' : ''}`);
    const callId = `${ORIGINATED_CALL_PREFIX}${randomUUID()}`;
    const now = this.deps.clock.now() / 1000;
    const row: OriginatedCall = {
      callId,
      agentId: input.agentId,
      agentNumber: agent.phone,
      customer,
      did,
      campaignId: input.campaignId ?? null,
      callFirst: input.callFirst ?? 'agent',
      agentCli: input.agentCli ?? null,
      createdAt: now,
    };
    const command = { callId, agentId: input.agentId, agentNumber: agent.phone, customer, did, campaignId: row.campaignId, ts: now };
    await this.deps.events.pushCommand(accountId, 'call.originate', command, (tx) => new SwitchRepository(tenant(tx, accountId)).insertOriginated(row));
    return { callId };
  }

  /**
   * Agent/setState: pushes `agent.state {agentId, state, reason, groupIds, ts}` to the switch
   * connectors on the stream. Nothing else changes here: the agent's live state changes when the
   * switch reports it (agent.login / agent.break.start / agent.logout events), so what a desk shows
   * is always the switch's state. An agent sets its own state; another agent's needs agent.manage.
   */
  async setState(principal: Principal, input: SetStateInput): Promise<{ seq: number }> {
    const accountId = principal.accountId;
    const agentId = input.agentId ?? principal.agentId;
    if (agentId === null) throw fail(1000, 'agentId is required (a client has no state of its own)');
    if (principal.kind === 'agent' && agentId !== principal.agentId && !principal.permissions.has('agent.manage')) {
      throw fail(1015, "missing permission agent.manage (to set another agent's state)");
    }
    const agent = await this.deps.agents.visible(principal, agentId);
    if (!agent) throw agentError(1509, `agent ${agentId}${visibleSubtreeOf(principal) !== null ? ' (or not one you may see)' : ''}`);
    let reason: string | null = null;
    if (input.state === 'break') {
      const { breakReasons } = await this.deps.accounts.settings(accountId);
      reason = input.reason ?? breakReasons[0]!;
      if (!breakReasons.includes(reason)) throw fail(1000, `reason must be one of the account's break reasons (${breakReasons.join(', ')})`);
    } else if (input.reason !== undefined) {
      throw fail(1000, 'reason is only given with state "break"');
    }
    const groupIds = await this.deps.agents.groupIdsOf(accountId, agentId);
    const command = { agentId, state: input.state, reason, groupIds, ts: this.deps.clock.now() / 1000 };
    return { seq: await this.deps.events.pushCommand(accountId, 'agent.state', command) };
  }

  /**
   * Agent/desk: what the calling agent's desk shows at start: who it is, its groups, the account's
   * break reasons and its live state as the switch last reported it (the stream's `agent` message
   * shape, or null before any event), read at `lstSync` so the stream resumes right after it.
   */
  async desk(principal: Principal) {
    const accountId = principal.accountId;
    const agentId = principal.agentId;
    if (agentId === null) throw fail(1015, 'the agent desk is for agent principals');
    const [agent, groupIds, settings, lstSync] = await Promise.all([
      this.deps.agents.find(accountId, agentId),
      this.deps.agents.groupIdsOf(accountId, agentId),
      this.deps.accounts.settings(accountId),
      this.deps.liveState.sequence(accountId),
    ]);
    if (!agent) throw fail(1014);
    const [groups, live] = await Promise.all([this.deps.groups.list(accountId), this.deps.liveState.agents(accountId)]);
    const mine = new Set(groupIds);
    const own = live.get(agentId);
    return {
      lstSync,
      agentId,
      name: agent.name,
      groups: groups.filter((g) => mine.has(g.groupId)).map((g) => ({ groupId: g.groupId, name: g.name })),
      breakReasons: settings.breakReasons,
      state: own ? agentMessage(own) : null,
    };
  }

  /** Of `callIds`, those placed by click-to-call (a call report's `cType: "CTC"`). */
  originatedAmong(accountId: number, callIds: string[]): Promise<Set<string>> {
    return new SwitchRepository(tenant(this.db, accountId)).originatedAmong(callIds);
  }
}
