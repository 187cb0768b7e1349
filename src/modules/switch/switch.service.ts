import type { AgentService } from '../agent/agent.service.js';
import type { DidService } from '../did/did.service.js';
import type { LiveStateService } from '../events/live-state.service.js';
import type { GroupService } from '../group/group.service.js';

/** What switch connectors read (PRODUCT.md §10): the names they map with, and the live state they reconcile with. */
export class SwitchService {
  private readonly agents: AgentService;
  private readonly groups: GroupService;
  private readonly dids: DidService;
  private readonly liveState: LiveStateService;

  constructor(deps: { agents: AgentService; groups: GroupService; dids: DidService; liveState: LiveStateService }) {
    this.agents = deps.agents;
    this.groups = deps.groups;
    this.dids = deps.dids;
    this.liveState = deps.liveState;
  }

  async config(accountId: number) {
    const [groups, agents, dids] = await Promise.all([this.groups.list(accountId), this.agents.destinations(accountId), this.dids.list(accountId)]);
    return {
      groups: groups.map((g) => ({ groupId: g.groupId, name: g.name })),
      agents,
      dids: dids.map((d) => d.did),
    };
  }

  async state(accountId: number) {
    const [lstSync, calls, agents] = await Promise.all([this.liveState.sequence(accountId), this.liveState.calls(accountId), this.liveState.agents(accountId)]);
    return {
      lstSync,
      calls: calls.map((c) => ({ callId: c.callId, state: c.state, groupId: c.groupId, agentId: c.agentId, ringingAgentId: c.ringAgent })),
      agents: [...agents.values()].map((a) => ({ agentId: a.agentId, loggedIn: a.loggedIn, breakReason: a.breakReason })),
    };
  }
}
