import type { SwitchAgent, SwitchMember } from './callcenter-config.js';
import { statusEvents, statusOf, type IngestEvent, type SwitchStatus } from './mapping.js';

/**
 * Reconciliation (PRODUCT.md §10): what `callcenter_config` reports against
 * the service's live state, after every reconnect and every `--reconcile-s`.
 * It answers the events that make the service agree with the switch, each
 * with its reason (in the event id, in `reason` where the type has a free
 * one, and in a log line), and the switch-side fixes to apply.
 */

/** The service's live state as switch/state answers it. */
export interface ServiceState {
  lstSync: number;
  calls: { callId: string; state: 'queued' | 'ringing' | 'connected'; groupId: number | null; agentId: number | null; ringingAgentId: number | null }[];
  agents: { agentId: number; loggedIn: boolean; breakReason: string | null }[];
}

export interface SwitchSnapshot {
  agents: SwitchAgent[];
  members: SwitchMember[];
  /** Members' channels that no longer exist (`uuid_exists` false): mod_callcenter's ghost members. */
  deadChannels: Set<string>;
}

export interface Correction {
  event: IngestEvent;
  /** Why, for the log: `member gone`, `agent logged out on the switch`… */
  why: string;
}

export interface ReconcileInput {
  snapshot: SwitchSnapshot;
  state: ServiceState;
  /** `5001@default` → agent id (mapped ones only). */
  agentIds: Map<string, number>;
  /** `support@default` → group id (mapped ones only). */
  groupIds: Map<string, number>;
  /** Agents that have a SIP extension in switch/config: only these are logged out when the switch does not list them. */
  sipAgentIds: Set<number>;
  /** Whether a live call of the service is this switch's (a mod_callcenter member's channel uuid). */
  ownsCall: (callId: string) => boolean;
  now: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A FreeSWITCH channel uuid: the ids this connector gives the calls of mod_callcenter's queues. */
export function isChannelUuid(callId: string): boolean {
  return UUID.test(callId);
}

/** A member still in the queue or talking, whose channel exists. */
function present(m: SwitchMember, dead: Set<string>): boolean {
  return m.state !== 'Abandoned' && !dead.has(m.sessionUuid);
}

export function reconcile(input: ReconcileInput): Correction[] {
  const { snapshot, state, now } = input;
  const out: Correction[] = [];
  const id = (...parts: (string | number)[]) => ['fs', 'reconcile', state.lstSync, ...parts].join(':');
  const members = new Map<string, SwitchMember>();
  for (const m of snapshot.members) if (present(m, snapshot.deadChannels)) members.set(m.sessionUuid, m);
  const agentIdOf = (name: string) => input.agentIds.get(name);

  // 1. Calls of ours the switch no longer reports end first, so the agents on them are free to be corrected.
  const live = new Map(state.calls.map((c) => [c.callId, c]));
  for (const c of state.calls) {
    if (!input.ownsCall(c.callId)) continue;
    const m = members.get(c.callId);
    if (!m) {
      const dead = snapshot.deadChannels.has(c.callId);
      out.push({
        event: { eventId: id(c.callId, 'ended'), type: 'call.ended', ts: now, callId: c.callId, ...(c.state === 'connected' ? { reason: 'completed' } : {}) },
        why: dead ? 'member listed by mod_callcenter but its channel is gone' : 'member no longer in any queue',
      });
      live.delete(c.callId);
      continue;
    }
    // Ringing an agent the switch is no longer offering it to: the offer ended unanswered.
    if (c.state === 'ringing' && c.ringingAgentId !== null) {
      const serving = m.state === 'Trying' ? agentIdOf(m.servingAgent) : undefined;
      if (serving !== c.ringingAgentId) {
        out.push({
          event: { eventId: id(c.callId, 'missed', c.ringingAgentId), type: 'call.missed', ts: now, callId: c.callId, agentId: c.ringingAgentId },
          why: 'offer no longer on the switch',
        });
      }
    }
  }

  // 2. Agents: the switch's status wins.
  const service = new Map(state.agents.map((a) => [a.agentId, a]));
  const busy = new Set<number>();
  for (const c of live.values()) if (c.state === 'connected' && c.agentId !== null) busy.add(c.agentId);
  const reported = new Set<number>();
  for (const a of snapshot.agents) {
    const agentId = agentIdOf(a.name);
    const to = statusOf(a.status);
    if (agentId === undefined || !to) continue;
    reported.add(agentId);
    const s = service.get(agentId);
    const from: SwitchStatus = !s?.loggedIn ? 'out' : s.breakReason !== null ? 'break' : 'available';
    if (to === 'out' && busy.has(agentId)) continue; // logged out mid-call: the call's end frees them, the next pass logs out
    for (const type of statusEvents(from, to)) {
      out.push({
        event: {
          eventId: id(a.name, type),
          type,
          ts: now,
          agentId,
          ...(type === 'agent.login' ? { loginType: 'SIP' as const } : {}),
          ...(type === 'agent.break.start' ? { reason: 'break' } : {}),
        },
        why: `agent ${a.name} is ${a.status} on the switch`,
      });
    }
  }
  for (const a of state.agents) {
    if (!a.loggedIn || reported.has(a.agentId) || !input.sipAgentIds.has(a.agentId) || busy.has(a.agentId)) continue;
    out.push({
      event: { eventId: id(a.agentId, 'agent.logout'), type: 'agent.logout', ts: now, agentId: a.agentId },
      why: 'agent not in callcenter_config agent list',
    });
  }

  // 3. Members the switch reports that we do not have: queued (DID unknown), answered when an agent serves them.
  for (const m of members.values()) {
    if (live.has(m.sessionUuid) || !isChannelUuid(m.sessionUuid)) continue;
    const groupId = input.groupIds.get(m.queue);
    if (groupId === undefined) continue;
    const ts = m.joinedEpoch > 0 ? m.joinedEpoch : now;
    out.push({
      event: {
        eventId: id(m.sessionUuid, 'queued'),
        type: 'call.queued',
        ts,
        callId: m.sessionUuid,
        groupId,
        direction: 'inbound',
        ...(m.cidNumber ? { caller: m.cidNumber } : {}),
      },
      why: `member of ${m.queue} not known to the service`,
    });
    const agentId = m.state === 'Answered' ? agentIdOf(m.servingAgent) : undefined;
    if (agentId !== undefined) {
      out.push({
        event: { eventId: id(m.sessionUuid, 'ringing', agentId), type: 'call.ringing', ts: now, callId: m.sessionUuid, agentId },
        why: `answered by ${m.servingAgent}`,
      });
      out.push({
        event: { eventId: id(m.sessionUuid, 'answered', agentId), type: 'call.answered', ts: now, callId: m.sessionUuid, agentId },
        why: `answered by ${m.servingAgent}`,
      });
    }
  }
  return out;
}

/**
 * Agents mod_callcenter keeps in `Reserved` with no member being offered to
 * them (the module's best-known fault): those reserved at two consecutive
 * passes are set back to `Waiting` on the switch.
 */
export function stuckReserved(agents: SwitchAgent[], members: SwitchMember[], reservedBefore: Set<string>): { stuck: string[]; reserved: Set<string> } {
  const offered = new Set(members.filter((m) => m.state === 'Trying' || m.state === 'Answered').map((m) => m.servingAgent));
  const reserved = new Set(agents.filter((a) => a.state === 'Reserved' && !offered.has(a.name)).map((a) => a.name));
  return { stuck: [...reserved].filter((n) => reservedBefore.has(n)), reserved };
}
