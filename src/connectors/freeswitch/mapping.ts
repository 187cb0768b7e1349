import type { EslEvent } from './esl-framing.js';

/**
 * mod_callcenter's events → the service's telephony events (PRODUCT.md §10).
 * A call's id is the caller's channel uuid (`CC-Member-Session-UUID`), which
 * every queue event and the caller's hold events carry, and which
 * `uuid_transfer` needs for a takeover.
 */

/** One event for events/ingest, in its wire form. */
export interface IngestEvent {
  eventId: string;
  type: string;
  ts: number;
  callId?: string;
  agentId?: number;
  groupId?: number;
  did?: string;
  caller?: string;
  direction?: 'inbound' | 'outbound';
  reason?: string;
  loginType?: 'Web' | 'Mobile' | 'SIP';
  campaignId?: string;
  answeredBy?: 'human' | 'machine';
}

/** Switch names → our ids; answers undefined for a name it does not know (and logs it once). */
export interface NameResolver {
  /** `support@default` → group id */
  groupId(queue: string): Promise<number | undefined> | number | undefined;
  /** `5001@default` → agent id */
  agentId(agent: string): Promise<number | undefined> | number | undefined;
}

/** `support@default` → `support`; `5001@default` → `5001`. */
export function beforeAt(name: string): string {
  const at = name.indexOf('@');
  return at < 0 ? name : name.slice(0, at);
}

/** `Event-Date-Timestamp` is microseconds since the epoch; the service wants seconds. */
export function eventSeconds(ev: EslEvent, now: () => number = Date.now): number {
  const micros = Number(ev.headers.get('Event-Date-Timestamp'));
  return Number.isFinite(micros) && micros > 0 ? micros / 1e6 : now() / 1000;
}

/** mod_callcenter agent statuses, as `agent-status-change` and `agent list` spell them. */
export type SwitchStatus = 'available' | 'break' | 'out';

export function statusOf(text: string): SwitchStatus | undefined {
  if (text === 'Available' || text === 'Available (On Demand)') return 'available';
  if (text === 'On Break') return 'break';
  if (text === 'Logged Out') return 'out';
  return undefined;
}

/** The events that move an agent from one switch status to another (login, break, logout). */
export function statusEvents(from: SwitchStatus, to: SwitchStatus): ('agent.login' | 'agent.logout' | 'agent.break.start' | 'agent.break.end')[] {
  if (from === to) return [];
  if (to === 'out') return ['agent.logout'];
  if (from === 'out') return to === 'break' ? ['agent.login', 'agent.break.start'] : ['agent.login'];
  return to === 'break' ? ['agent.break.start'] : ['agent.break.end'];
}

/** A campaign dial placed by originate (PRODUCT.md §13): its answered channel is reported under the service's callId. */
export interface CampaignDial {
  callId: string;
  campaignId: string;
  customer: string;
  did: string | null;
  groupId: number;
  amd: boolean;
  connected?: 'human' | 'machine';
  queued?: boolean;
  /** Progressive / preview: the reserved agent the dialplan bridges (`cc_agent`), reported by its `cc::agent` events. */
  agentId?: number;
  /** That agent's ring: 'ringing', then 'answered' (or back to undefined when missed). */
  agentLeg?: 'ringing' | 'answered';
  /** The agent's call.queued was sent. */
  offered?: boolean;
}

export class FreeswitchMapper {
  /** Answered campaign dials: channel uuid (originate's `+OK <uuid>`) → the dial. */
  readonly dials = new Map<string, CampaignDial>();
  /** Channel uuid (caller's or an agent's leg) → callId, for hold events. */
  private readonly channels = new Map<string, string>();
  private readonly answered = new Set<string>();
  /** What the switch last said of each agent (`5001@default` → status). */
  readonly agentStatus = new Map<string, SwitchStatus>();
  /** agent name → the reason an agent.state command asked for: given to the break the switch reports next. */
  readonly breakReasons = new Map<string, string>();
  /**
   * Calls taken over: `uuid_transfer` took the caller out of mod_callcenter,
   * which then reports the bridge and the member as ended although the call
   * goes on with the new agent. Their queue events are ignored (hold still counts).
   */
  readonly takenOver = new Set<string>();

  constructor(
    private readonly names: NameResolver,
    private readonly log: (line: string) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Drops what the mapper holds about a call that ended. */
  forget(callId: string): void {
    for (const [uuid, d] of this.dials) if (d.callId === callId) this.dials.delete(uuid);
    this.answered.delete(callId);
    this.takenOver.delete(callId);
    for (const [channel, id] of this.channels) if (id === callId) this.channels.delete(channel);
  }

  async map(ev: EslEvent): Promise<IngestEvent[]> {
    const name = ev.headers.get('Event-Name');
    if (name === 'CHANNEL_HOLD' || name === 'CHANNEL_UNHOLD') return this.hold(ev, name === 'CHANNEL_HOLD');
    if (name === 'CUSTOM' && ev.headers.get('Event-Subclass') === 'cc::amd') return this.amd(ev);
    if (name === 'CUSTOM' && ev.headers.get('Event-Subclass') === 'cc::agent') return this.agentLeg(ev);
    if (name !== 'CUSTOM' || ev.headers.get('Event-Subclass') !== 'callcenter::info') return [];
    const h = (k: string) => ev.headers.get(k) ?? '';
    const action = h('CC-Action');
    const ts = eventSeconds(ev, this.now);
    const micros = h('Event-Date-Timestamp') || String(Math.round(ts * 1e6));
    const id = (...parts: string[]) => ['fs', ...parts, micros].join(':');
    const session = h('CC-Member-Session-UUID');
    // A campaign dial's channel in the queue: its events are the dial's (its callId, not the channel's).
    const dial = this.dials.get(session);
    const callId = dial?.callId ?? session;
    if (dial && action === 'member-queue-start') {
      if (dial.queued) return [];
      dial.queued = true;
      this.channels.set(session, callId);
      const groupId = (await this.names.groupId(h('CC-Queue'))) ?? dial.groupId;
      return [
        {
          eventId: id(callId, action),
          type: 'call.queued',
          ts,
          callId,
          groupId,
          direction: 'outbound',
          campaignId: dial.campaignId,
          caller: dial.customer,
          ...(dial.did ? { did: dial.did } : {}),
        },
      ];
    }
    if (callId && this.takenOver.has(callId)) return [];

    switch (action) {
      case 'agent-status-change': {
        const agent = h('CC-Agent');
        const to = statusOf(h('CC-Agent-Status'));
        if (!agent || !to) return [];
        const agentId = await this.names.agentId(agent);
        const from = this.agentStatus.get(agent) ?? (to === 'out' ? 'available' : 'out');
        this.agentStatus.set(agent, to);
        if (agentId === undefined) return [];
        const asked = this.breakReasons.get(agent);
        if (to === 'break' || to === 'out' || to === 'available') this.breakReasons.delete(agent);
        return statusEvents(from, to).map((type) => ({
          eventId: id(agent, type),
          type,
          ts,
          agentId,
          ...(type === 'agent.login' ? { loginType: 'SIP' as const } : {}),
          // mod_callcenter has one break status and no reason: the reason is `break` (PRODUCT.md §10),
          // or the one the agent desk asked for with the status (agent.state).
          ...(type === 'agent.break.start' ? { reason: asked ?? 'break' } : {}),
        }));
      }
      case 'member-queue-start': {
        if (!callId) return [];
        const groupId = await this.names.groupId(h('CC-Queue'));
        if (groupId === undefined) return [];
        this.channels.set(callId, callId);
        const did = h('Caller-Destination-Number');
        const caller = h('CC-Member-CID-Number') || h('Caller-Caller-ID-Number');
        return [
          {
            eventId: id(callId, action),
            type: 'call.queued',
            ts,
            callId,
            groupId,
            direction: 'inbound',
            ...(did ? { did } : {}),
            ...(caller ? { caller } : {}),
          },
        ];
      }
      case 'agent-offering':
      case 'bridge-agent-fail':
      case 'bridge-agent-start': {
        if (!callId) return [];
        // Not checked against what this process saw: after a restart the service knows the call (1012 if not).
        this.channels.set(callId, callId);
        const agent = h('CC-Agent');
        const agentId = await this.names.agentId(agent);
        if (agentId === undefined) return [];
        const type = action === 'agent-offering' ? 'call.ringing' : action === 'bridge-agent-fail' ? 'call.missed' : 'call.answered';
        if (type === 'call.answered') {
          this.answered.add(callId);
          const agentLeg = h('CC-Agent-UUID');
          if (agentLeg) this.channels.set(agentLeg, callId);
        }
        return [{ eventId: id(callId, action, beforeAt(agent)), type, ts, callId, agentId }];
      }
      case 'member-queue-end': {
        if (!callId) return [];
        const cause = h('CC-Cause');
        const cancel = h('CC-Cancel-Reason');
        // Terminated after a bridge is a completed call; Cancel (BREAK_OUT, TIMEOUT, NO_AGENT_TIMEOUT,
        // EXIT_WITH_KEY) is an abandon. The cancel reason has no field of its own: it is in the event id.
        const reason = cause === 'Cancel' ? 'abandoned' : this.answered.has(callId) ? 'completed' : undefined;
        this.forget(callId);
        if (cancel && cancel !== 'NONE') this.log(`freeswitch: call ${callId} left ${h('CC-Queue')}: ${cause} ${cancel}`);
        return [{ eventId: id(callId, action, cause || 'end', cancel || 'NONE'), type: 'call.ended', ts, callId, ...(reason ? { reason } : {}) }];
      }
      default:
        return [];
    }
  }

  /**
   * The campaign dialplan's AMD result: `event` with `Event-Subclass=cc::amd`, `cc_call_id`, and
   * `amd_result` (mod_amd's HUMAN / MACHINE / NOTSURE; avmd's beep: set it to MACHINE) → call.connected.
   */
  private amd(ev: EslEvent): IngestEvent[] {
    const h = (k: string) => ev.headers.get(k) ?? '';
    const uuid = h('Unique-ID');
    const dial = this.dials.get(uuid) ?? [...this.dials.values()].find((d) => d.callId === (h('cc_call_id') || h('variable_cc_call_id')));
    if (!dial || dial.connected !== undefined) return [];
    dial.connected = /^machine$/i.test(h('amd_result') || h('variable_amd_result')) ? 'machine' : 'human';
    const micros = h('Event-Date-Timestamp');
    return [
      {
        eventId: ['fs', dial.callId, 'amd', micros].join(':'),
        type: 'call.connected',
        ts: eventSeconds(ev, this.now),
        callId: dial.callId,
        answeredBy: dial.connected,
      },
    ];
  }

  /**
   * Progressive / preview: the campaign dialplan bridges the customer to the reserved agent and says
   * so with `cc::agent` events (`cc_state` ringing before the bridge, answered from the agent's leg
   * on answer, missed when the bridge failed) → call.queued + call.ringing, call.answered, call.missed.
   */
  private agentLeg(ev: EslEvent): IngestEvent[] {
    const h = (k: string) => ev.headers.get(k) ?? '';
    const callId = h('cc_call_id') || h('variable_cc_call_id');
    const dial = this.dials.get(h('Unique-ID')) ?? [...this.dials.values()].find((d) => d.callId === callId);
    if (!dial || dial.agentId === undefined || dial.queued) return [];
    const state = h('cc_state');
    const micros = h('Event-Date-Timestamp');
    const ts = eventSeconds(ev, this.now);
    const agentId = dial.agentId;
    const base = (type: string, what: string): IngestEvent => ({
      eventId: ['fs', dial.callId, 'agent', what, micros].join(':'),
      type,
      ts,
      callId: dial.callId,
    });
    if (state === 'ringing' && dial.agentLeg === undefined) {
      dial.agentLeg = 'ringing';
      const out: IngestEvent[] = [];
      if (!dial.offered) {
        dial.offered = true;
        out.push({
          ...base('call.queued', 'queued'),
          groupId: dial.groupId,
          direction: 'outbound',
          campaignId: dial.campaignId,
          caller: dial.customer,
          ...(dial.did ? { did: dial.did } : {}),
        });
      }
      return [...out, { ...base('call.ringing', 'ringing'), agentId }];
    }
    if (state === 'answered' && dial.agentLeg === 'ringing') {
      dial.agentLeg = 'answered';
      return [{ ...base('call.answered', 'answered'), agentId }];
    }
    if (state === 'missed' && dial.agentLeg === 'ringing') {
      dial.agentLeg = undefined;
      return [{ ...base('call.missed', 'missed'), agentId }];
    }
    return [];
  }

  private hold(ev: EslEvent, on: boolean): IngestEvent[] {
    const uuid = ev.headers.get('Unique-ID') ?? '';
    // Either leg: the caller's channel, the agent's leg seen at bridge-agent-start, or a leg mod_callcenter tagged.
    const callId = this.channels.get(uuid) ?? this.channels.get(ev.headers.get('variable_cc_member_session_uuid') ?? '');
    if (!callId) return [];
    const micros = ev.headers.get('Event-Date-Timestamp') ?? '';
    return [
      {
        eventId: ['fs', callId, on ? 'hold' : 'unhold', uuid, micros].join(':'),
        type: on ? 'call.hold' : 'call.unhold',
        ts: eventSeconds(ev, this.now),
        callId,
      },
    ];
  }

  /** Whether the mapper tracks this call (it saw it queued and not ended). */
  tracks(callId: string): boolean {
    return this.channels.get(callId) === callId;
  }

  /** Adopts a call found live (in our state and on the switch) so its later events map. */
  adopt(callId: string, answered: boolean): void {
    this.channels.set(callId, callId);
    if (answered) this.answered.add(callId);
  }
}
