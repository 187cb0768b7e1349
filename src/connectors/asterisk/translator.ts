import { switchEventId, switchTime, type SwitchEvent } from '../core/index.js';
import { callIdOfOriginate } from './actions.js';
import { chanVariables, header, type AmiMessage } from './ami-parser.js';

/** A call the connector follows: enough to map later events and execute commands on it. */
export interface TrackedCall {
  callId: string;
  /** The caller's channel (Redirect moves it); for click-to-call the agent's. */
  channel: string;
  answered: boolean;
  ringing: number | null;
  agentId: number | null;
  onHold: boolean;
  /** Moved by a takeover: the queue's AgentComplete for the old agent no longer ends it, the caller's hangup does. */
  takenOver: boolean;
  /** Placed by Originate (click-to-call), not by a queue. */
  originated: boolean;
}

export interface TranslatorDeps {
  group(queue: string): Promise<number | undefined>;
  agent(member: string): Promise<number | undefined>;
  /** `--did-var`: the DID is this channel variable (manager.conf channelvars) instead of the dialled Exten. */
  didVar: string | null;
  /** Milliseconds (the arrival time of events without a Timestamp header). */
  now(): number;
}

/** `unknown`, `<unknown>`, `s`, empty: not a number. */
function number(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if (!s || /^<?unknown>?$/i.test(s) || s === 's' || !/\d/.test(s)) return undefined;
  return s;
}

/** Asterisk QueueMemberStatus `Status` (ast_device_state): 0 unknown, 4 invalid, 5 unavailable → offline. */
export function sipStatusOf(status: string | undefined): 'online' | 'offline' {
  return status === '0' || status === '4' || status === '5' ? 'offline' : 'online';
}

/**
 * AMI events → telephony events (the mapping of PRODUCT.md §10), with the
 * per-switch state the mapping needs: which channel belongs to which call,
 * which queues each member is in (logged in while in at least one), which are
 * paused (on break while paused in any).
 */
export class AsteriskTranslator {
  readonly calls = new Map<string, TrackedCall>();
  /** Uniqueid / Linkedid of any leg → callId. */
  private readonly legs = new Map<string, string>();
  /** agent → queue → paused reason (null: not paused). */
  readonly members = new Map<number, Map<string, string | null>>();
  private readonly sip = new Map<number, string>();

  constructor(private readonly deps: TranslatorDeps) {}

  /** Forgets every call and member (before a reconciliation rebuilds them). */
  reset(): void {
    this.calls.clear();
    this.legs.clear();
    this.members.clear();
  }

  track(call: TrackedCall, ...legs: Array<string | undefined>): void {
    this.calls.set(call.callId, call);
    for (const l of [call.callId, ...legs]) if (l) this.legs.set(l, call.callId);
  }

  private forget(callId: string): void {
    this.calls.delete(callId);
    for (const [leg, id] of this.legs) if (id === callId) this.legs.delete(leg);
  }

  /** The call an event's channel belongs to (its Uniqueid, DestUniqueid, Linkedid, or CC_CALL_ID variable). */
  private callOf(m: AmiMessage): TrackedCall | undefined {
    for (const key of ['Uniqueid', 'DestUniqueid', 'Linkedid', 'DestLinkedid']) {
      const id = header(m, key);
      const callId = id === undefined ? undefined : this.legs.get(id);
      if (callId !== undefined) return this.calls.get(callId);
    }
    const cc = chanVariables(m).get('CC_CALL_ID');
    return cc === undefined ? undefined : this.calls.get(cc);
  }

  async translate(m: AmiMessage): Promise<SwitchEvent[]> {
    const name = header(m, 'Event') ?? '';
    const ts = switchTime(header(m, 'Timestamp'), this.deps.now() / 1000);
    const stamp = header(m, 'Timestamp') ?? ts.toFixed(6);
    const uid = header(m, 'Uniqueid') ?? '';
    const member = header(m, 'Interface') ?? header(m, 'MemberName') ?? header(m, 'Location') ?? '';
    const id = (...parts: Array<string | number | undefined>) => switchEventId('ast', ...parts);
    switch (name) {
      case 'QueueCallerJoin': {
        if (this.calls.has(uid)) return [];
        const groupId = await this.deps.group(header(m, 'Queue') ?? '');
        if (groupId === undefined) return [];
        const did = this.deps.didVar ? chanVariables(m).get(this.deps.didVar) : header(m, 'Exten');
        this.track(
          {
            callId: uid,
            channel: header(m, 'Channel') ?? '',
            answered: false,
            ringing: null,
            agentId: null,
            onHold: false,
            takenOver: false,
            originated: false,
          },
          header(m, 'Linkedid'),
        );
        const ev: SwitchEvent = { eventId: id(uid, name, stamp), type: 'call.queued', ts, callId: uid, groupId, direction: 'inbound' };
        const caller = number(header(m, 'CallerIDNum'));
        const dialled = number(did);
        if (caller) ev.caller = caller;
        if (dialled) ev.did = dialled;
        return [ev];
      }
      case 'AgentCalled':
      case 'AgentRingNoAnswer':
      case 'AgentConnect': {
        const call = this.calls.get(uid);
        if (!call || call.takenOver) return [];
        const agentId = await this.deps.agent(member);
        if (agentId === undefined) return [];
        const out: SwitchEvent[] = [];
        const ev = (type: string, agent: number, extra = '') => ({
          eventId: id(uid, name, member, stamp, extra),
          type,
          ts,
          callId: call.callId,
          agentId: agent,
        });
        if (name === 'AgentRingNoAnswer') {
          if (call.ringing !== agentId) return [];
          call.ringing = null;
          return [ev('call.missed', agentId)];
        }
        // A ring the connector did not see end (lost in an outage) ends before the next one starts.
        if (call.ringing !== null && call.ringing !== agentId) out.push(ev('call.missed', call.ringing, 'previous'));
        if (name === 'AgentCalled') {
          if (call.answered || call.ringing === agentId) return out;
          call.ringing = agentId;
          this.legs.set(header(m, 'DestUniqueid') ?? '', call.callId);
          return [...out, ev('call.ringing', agentId)];
        }
        if (call.answered) return out;
        // AgentConnect without the AgentCalled (it came during an outage): the offer is reported first.
        if (call.ringing !== agentId) out.push(ev('call.ringing', agentId, 'offer'));
        call.ringing = null;
        call.answered = true;
        call.agentId = agentId;
        for (const k of ['DestUniqueid', 'DestLinkedid']) {
          const leg = header(m, k);
          if (leg) this.legs.set(leg, call.callId);
        }
        return [...out, ev('call.answered', agentId)];
      }
      case 'AgentComplete':
      case 'QueueCallerAbandon': {
        const call = this.calls.get(uid);
        if (!call || call.takenOver) return [];
        this.forget(call.callId);
        const reason = name === 'AgentComplete' && call.answered ? 'completed' : 'abandoned';
        return [{ eventId: id(uid, name, stamp), type: 'call.ended', ts, callId: call.callId, reason }];
      }
      case 'Hangup': {
        // Only the call's own channel ends it: the caller's (a queue call) or the agent's (a click-to-call), never a ringing agent's leg.
        const call = this.callOf(m);
        if (!call || !this.isOwnChannel(call, m, uid)) return [];
        // An answered queue call ends with AgentComplete, unless a takeover took it out of the queue.
        if (call.answered && !call.takenOver && !call.originated) return [];
        this.forget(call.callId);
        const ev: SwitchEvent = { eventId: id(call.callId, name, stamp), type: 'call.ended', ts, callId: call.callId };
        if (call.answered) ev.reason = 'completed';
        return [ev];
      }
      case 'Hold':
      case 'Unhold': {
        const call = this.callOf(m);
        const hold = name === 'Hold';
        if (!call || !call.answered || call.onHold === hold) return [];
        call.onHold = hold;
        return [{ eventId: id(call.callId, name, uid, stamp), type: hold ? 'call.hold' : 'call.unhold', ts, callId: call.callId }];
      }
      case 'OriginateResponse':
        return this.originated(m, ts, stamp);
      case 'QueueMemberAdded':
      case 'QueueMemberRemoved':
      case 'QueueMemberPause':
      case 'QueueMemberStatus':
        return this.memberEvent(name, m, member, ts, stamp);
      default:
        return [];
    }
  }

  private isOwnChannel(call: TrackedCall, m: AmiMessage, uid: string): boolean {
    if (!call.originated) return uid === call.callId;
    return this.legs.get(uid) === call.callId || chanVariables(m).get('CC_CALL_ID') === call.callId;
  }

  /** The agent leg of a click-to-call answered (Success) or not (Failure). */
  private originated(m: AmiMessage, ts: number, stamp: string): SwitchEvent[] {
    const callId = callIdOfOriginate(header(m, 'ActionID'));
    const call = callId === undefined ? undefined : this.calls.get(callId);
    if (!call || call.ringing === null) return [];
    const agentId = call.ringing;
    call.ringing = null;
    const id = (t: string) => switchEventId('ast', call.callId, 'OriginateResponse', t, stamp);
    if (/^success$/i.test(header(m, 'Response') ?? '')) {
      call.answered = true;
      call.agentId = agentId;
      const leg = header(m, 'Uniqueid');
      if (leg) this.legs.set(leg, call.callId);
      return [{ eventId: id('answered'), type: 'call.answered', ts, callId: call.callId, agentId }];
    }
    this.forget(call.callId);
    return [
      { eventId: id('missed'), type: 'call.missed', ts, callId: call.callId, agentId },
      { eventId: id('ended'), type: 'call.ended', ts, callId: call.callId, reason: 'failed' },
    ];
  }

  private async memberEvent(name: string, m: AmiMessage, member: string, ts: number, stamp: string): Promise<SwitchEvent[]> {
    const agentId = await this.deps.agent(member);
    if (agentId === undefined) return [];
    const queue = header(m, 'Queue') ?? '';
    const id = (what: string) => switchEventId('ast', member, name, queue, what, stamp);
    const queues = this.members.get(agentId) ?? new Map<string, string | null>();
    const wasIn = queues.size > 0;
    const wasPaused = [...queues.values()].some((r) => r !== null);
    const out: SwitchEvent[] = [];
    if (name === 'QueueMemberStatus') {
      const sipStatus = sipStatusOf(header(m, 'Status'));
      if (this.sip.get(agentId) === sipStatus) return [];
      this.sip.set(agentId, sipStatus);
      return [{ eventId: id(sipStatus), type: 'agent.sip', ts, agentId, sipStatus }];
    }
    if (name === 'QueueMemberRemoved') queues.delete(queue);
    else {
      const paused = header(m, 'Paused') === '1';
      queues.set(queue, paused ? pauseReason(m) : null);
    }
    this.members.set(agentId, queues);
    if (queues.size === 0) this.members.delete(agentId);
    const isIn = queues.size > 0;
    const reasons = [...queues.values()].filter((r): r is string => r !== null);
    if (!wasIn && isIn) out.push({ eventId: id('login'), type: 'agent.login', ts, agentId, loginType: 'SIP' });
    if (isIn && !wasPaused && reasons.length > 0) out.push({ eventId: id('break'), type: 'agent.break.start', ts, agentId, reason: reasons[0] });
    if (isIn && wasPaused && reasons.length === 0) out.push({ eventId: id('unbreak'), type: 'agent.break.end', ts, agentId });
    if (wasIn && !isIn) out.push({ eventId: id('logout'), type: 'agent.logout', ts, agentId });
    return out;
  }

  /** Starts following a click-to-call placed by Originate (its agent is ringing). */
  trackOriginate(callId: string, agentId: number, channel: string): void {
    this.track({ callId, channel, answered: false, ringing: agentId, agentId: null, onHold: false, takenOver: false, originated: true });
  }
}

/** `PausedReason` (Asterisk 13.? on) or `Reason` (older); no reason: `break`. */
export function pauseReason(m: AmiMessage): string {
  const r = header(m, 'PausedReason') ?? header(m, 'Reason');
  return r && r.trim() ? r.trim() : 'break';
}
