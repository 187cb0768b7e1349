import type { Rejection, TelephonyEvent } from './event-types.js';
import type { AgentLive } from './live.types.js';

/** What agent events need of the machine: the batch's agents and the one way to change one. */
export interface AgentSide {
  agent(id: number): AgentLive | undefined;
  mutateAgent(a: AgentLive, t: number, seq: number, change: (a: AgentLive) => void): void;
  isPast(a: AgentLive, ts: number): boolean;
  pastState(a: AgentLive, ts: number): AgentLive;
  mutatePast(live: AgentLive, past: AgentLive, t: number, seq: number, change: (a: AgentLive) => void): void;
}

/**
 * The agent state machine (login, logout, breaks, wrap-up, SIP status): each
 * event is checked against the agent's state and applied, or rejected with
 * nothing changed. Calls move agents too; that side is in machine.ts. A past
 * event (a day imported after the fact) is checked against the agent's state
 * at its own time and changes only the agent's history.
 */
export function applyAgentEvent(m: AgentSide, ev: TelephonyEvent, seq: number): Rejection | null {
  const live = m.agent(ev.agentId!);
  if (!live) return [1509, `Invalid agent id: agent ${ev.agentId}`];
  const past = m.isPast(live, ev.ts) ? m.pastState(live, ev.ts) : null;
  const a = past ?? live;
  const t = Math.max(ev.ts, a.lastTs);
  const mutate = (change: (a: AgentLive) => void) => (past ? m.mutatePast(live, past, t, seq, change) : m.mutateAgent(live, t, seq, change));
  const busy = a.callId !== null || a.ringCall !== null;
  switch (ev.type) {
    case 'agent.sip':
      // The SIP status is live only: a past one is accepted and changes nothing.
      if (!past) m.mutateAgent(live, t, seq, (x) => (x.sipStatus = ev.sipStatus!));
      return null;
    case 'agent.login':
      if (a.loggedIn) return [1524, `Invalid action: agent ${a.agentId} is already logged in`];
      mutate((x) => {
        x.loggedIn = true;
        x.loginType = ev.loginType ?? 'Web';
        x.loginAt = t;
      });
      return null;
  }
  if (!a.loggedIn) return [1043, `Agent is not logged in: agent ${a.agentId}`];
  switch (ev.type) {
    case 'agent.logout':
      if (busy) return [1524, `Invalid action: agent ${a.agentId} is ringing or on a call`];
      mutate((x) => {
        x.loggedIn = false;
        x.loginType = null;
        x.loginAt = null;
        x.breakReason = null;
        x.breakAt = null;
        x.wrapupAt = null;
      });
      return null;
    case 'agent.break.start':
      if (a.breakReason !== null) return [1524, `Invalid action: agent ${a.agentId} is already on break`];
      if (busy) return [1524, `Invalid action: agent ${a.agentId} is ringing or on a call`];
      mutate((x) => {
        x.breakReason = ev.reason ?? '';
        x.breakAt = t;
      });
      return null;
    case 'agent.break.end':
      if (a.breakReason === null) return [1524, `Invalid action: agent ${a.agentId} is not on break`];
      mutate((x) => {
        x.breakReason = null;
        x.breakAt = null;
      });
      return null;
    case 'agent.wrapup.start':
      if (a.wrapupAt !== null) return [1524, `Invalid action: agent ${a.agentId} is already in wrap-up`];
      if (busy) return [1524, `Invalid action: agent ${a.agentId} is ringing or on a call`];
      mutate((x) => {
        x.wrapupAt = t;
        x.wrapCall = ev.callId ?? x.lastCall;
      });
      return null;
    case 'agent.wrapup.end':
      if (a.wrapupAt === null) return [1524, `Invalid action: agent ${a.agentId} is not in wrap-up`];
      mutate((x) => (x.wrapupAt = null));
      return null;
    default:
      return [1001, `Invalid data type or value: type ${ev.type}`];
  }
}
