import { switchEventId, switchTime, visitCallId, type SwitchEvent } from '../core/index.js';
import { callIdOfOriginate, originateFailureReason } from './actions.js';
import { chanVariables, header, type AmiMessage } from './ami-parser.js';

/** A call the connector follows: enough to map later events and execute commands on it. */
export interface TrackedCall {
  callId: string;
  /** The caller's channel (Redirect moves it); for click-to-call the agent's. */
  channel: string;
  answered: boolean;
  /** The member whose ring the service holds (it keeps one offer per call). */
  ringing: number | null;
  /** Every member the switch rings now (ringall rings several), with the ring's start. */
  rung?: Map<number, number>;
  /** Members whose ring ended unanswered while another's was the reported one: reported when that one ends. */
  unreported?: Array<{ agentId: number; from: number; to: number }>;
  /** When the call was queued, answered, and its latest event (dating events without a Timestamp by HoldTime / TalkTime). */
  queuedTs?: number;
  answeredTs?: number;
  lastTs?: number;
  /** The queue of a queue call (a replayed join is recognised). */
  queue?: string;
  /** QueueCallerLeave of the unanswered caller: the visit ends there unless an AgentConnect follows. */
  left?: number | null;
  agentId: number | null;
  onHold: boolean;
  /** Moved by a takeover: the queue's AgentComplete for the old agent no longer ends it, the caller's hangup does. */
  takenOver: boolean;
  /** Placed by Originate (click-to-call), not by a queue. */
  originated: boolean;
  /** A campaign dial (PRODUCT.md §13): the customer's leg placed first; its queue visit (or preview Dial) is this call. */
  campaign?: CampaignDial;
}

export interface CampaignDial {
  campaignId: string;
  customer: string;
  did: string | null;
  groupId: number;
  amd: boolean;
  /** Preview / progressive: the reserved agent the dialplan Dials. */
  agentId?: number;
  /** The answered customer channel (OriginateResponse's Uniqueid): its Hangup ends the call. */
  uid?: string;
  connected?: 'human' | 'machine';
  queued?: boolean;
}

export interface TranslatorDeps {
  group(queue: string): Promise<number | undefined>;
  /** The agent of a member by its names (interface, member name, state interface: SwitchMapper.agent). */
  agent(...member: Array<string | undefined>): Promise<number | undefined>;
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
  /** Per caller channel (Uniqueid): its queue visits so far and the last one's callId. Kept across reconciliations. */
  readonly visits = new Map<string, { n: number; last: string; joins?: string[] }>();
  /** agent → queue → paused reason (null: not paused). */
  readonly members = new Map<number, Map<string, string | null>>();
  /** agent → the member interface the switch names it by (`PJSIP/5001`): what agent.state's actions name. Kept across reconnects. */
  readonly interfaces = new Map<number, string>();
  private readonly sip = new Map<number, string>();

  constructor(private readonly deps: TranslatorDeps) {}

  /**
   * Forgets every call and member (before a reconciliation rebuilds them), except campaign dials:
   * their ids are the service's (`obd-…`), not a channel's, so QueueStatus cannot name them; they
   * stay followed through the outage and end on their own channel's events.
   */
  reset(): void {
    for (const [id, call] of this.calls) if (!call.campaign) this.calls.delete(id);
    for (const [leg, id] of this.legs) if (!this.calls.has(id)) this.legs.delete(leg);
    this.members.clear();
  }

  /** The campaign dial whose customer channel (or call id) this is, if any. */
  campaignCall(uidOrCallId: string): TrackedCall | undefined {
    const call = this.calls.get(this.legs.get(uidOrCallId) ?? uidOrCallId);
    return call?.campaign ? call : undefined;
  }

  track(call: TrackedCall, ...legs: Array<string | undefined>): void {
    this.calls.set(call.callId, call);
    for (const l of [call.callId, ...legs]) if (l) this.legs.set(l, call.callId);
  }

  private forget(callId: string): void {
    this.calls.delete(callId);
    for (const [leg, id] of this.legs) if (id === callId) this.legs.delete(leg);
  }

  /** The open visit of a caller's channel. */
  private visitOf(uid: string): TrackedCall | undefined {
    const callId = this.legs.get(uid);
    return callId === undefined ? undefined : this.calls.get(callId);
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
    const name = eventName(header(m, 'Event') ?? '');
    const stamped = header(m, 'Timestamp');
    const arrival = switchTime(stamped, this.deps.now() / 1000);
    const timed = stamped !== undefined && arrival !== this.deps.now() / 1000;
    // Without timestampevents, the SequenceNumber (Asterisk 12+) keeps a replay's ids equal.
    const seq = header(m, 'SequenceNumber');
    const stamp = stamped ?? (seq !== undefined ? `seq${seq}` : arrival.toFixed(6));
    const uid = header(m, 'Uniqueid') ?? '';
    const names = memberNames(m);
    const member = names.find((n) => !!n) ?? '';
    const id = (...parts: Array<string | number | undefined>) => switchEventId('ast', ...parts);
    switch (name) {
      case 'QueueCallerJoin':
        return this.join(m, uid, arrival, stamp);
      case 'QueueCallerLeave': {
        // Asterisk writes it when the caller leaves the queue for any reason, an answer too (before AgentConnect).
        const call = this.visitOf(uid);
        if (call && !call.answered && !call.takenOver && !call.originated) call.left = arrival;
        return [];
      }
      case 'Newexten': {
        // The caller left the queue unanswered (timeout, exit key, empty queue) and the dialplan goes on: the visit is over.
        const call = this.visitOf(uid);
        if (!call || call.answered || call.left === null || call.left === undefined || call.channel !== (header(m, 'Channel') ?? call.channel)) return [];
        return this.endVisit(call, call.left, id(call.callId, 'left', stamp), undefined);
      }
      case 'AgentCalled':
      case 'AgentRingNoAnswer':
      case 'AgentConnect': {
        const call = this.visitOf(uid);
        if (!call || call.takenOver || call.originated) return [];
        const agentId = await this.deps.agent(...names);
        if (agentId === undefined) return [];
        const ev = (type: string, agent: number, at: number, extra = ''): SwitchEvent => ({
          eventId: id(uid, name, member, stamp, extra),
          type,
          ts: at,
          callId: call.callId,
          agentId: agent,
        });
        const rung = (call.rung ??= new Map());
        if (name === 'AgentCalled') {
          if (call.answered || rung.has(agentId)) return [];
          rung.set(agentId, arrival);
          this.legs.set(header(m, 'DestUniqueid') ?? '', call.callId);
          // ringall rings several members at once; the service holds one offer per call: the first rung one's.
          if (call.ringing !== null) return [];
          call.ringing = agentId;
          return this.touch(call, [ev('call.ringing', agentId, arrival)]);
        }
        if (name === 'AgentRingNoAnswer') {
          const from = rung.get(agentId);
          rung.delete(agentId);
          if (call.ringing !== agentId) {
            if (from !== undefined) (call.unreported ??= []).push({ agentId, from, to: arrival });
            return [];
          }
          call.ringing = null;
          return this.touch(call, [ev('call.missed', agentId, arrival), ...this.nextOffer(call, arrival, (t, a, x) => ev(t, a, arrival, x))]);
        }
        if (call.answered) return [];
        // Without a Timestamp the switch's own HoldTime dates the answer (the wait it measured).
        const at = timed ? arrival : this.byDuration(call, call.queuedTs, header(m, 'HoldTime'), arrival);
        const out: SwitchEvent[] = [];
        // ringall: the member whose ring the service holds, when another answered, missed at that answer.
        if (call.ringing !== null && call.ringing !== agentId) out.push(ev('call.missed', call.ringing, at, 'previous'));
        // AgentConnect without the AgentCalled (it came during an outage): the offer is reported first.
        if (call.ringing !== agentId) out.push(ev('call.ringing', agentId, at, 'offer'));
        rung.clear();
        call.unreported = [];
        call.ringing = null;
        call.answered = true;
        call.left = null;
        call.agentId = agentId;
        call.answeredTs = at;
        for (const k of ['DestUniqueid', 'DestLinkedid', 'BridgedChannel']) {
          const leg = header(m, k);
          if (leg) this.legs.set(leg, call.callId);
        }
        return this.touch(call, [...out, ev('call.answered', agentId, at)]);
      }
      case 'AgentComplete':
      case 'QueueCallerAbandon': {
        const call = this.visitOf(uid);
        if (!call || call.takenOver || call.originated) return [];
        const reason = name === 'AgentComplete' && call.answered ? 'completed' : 'abandoned';
        const at = timed
          ? arrival
          : name === 'AgentComplete'
            ? this.byDuration(call, call.answeredTs, header(m, 'TalkTime'), arrival)
            : this.byDuration(call, call.queuedTs, header(m, 'HoldTime'), arrival);
        return this.endVisit(call, at, id(uid, name, stamp), reason);
      }
      case 'UserEvent':
        return this.userEvent(m, arrival, stamp);
      case 'DialBegin':
      case 'DialEnd':
        return this.previewDial(name, m, uid, arrival, stamp);
      case 'Hangup': {
        const dial = this.callOf(m);
        if (dial?.campaign && !dial.campaign.queued) return this.campaignHangup(dial, dial.campaign, m, uid, arrival, stamp);
        // Only the call's own channel ends it: the caller's (a queue call) or the agent's (a click-to-call), never a ringing agent's leg.
        const call = this.callOf(m);
        if (!call || !this.isOwnChannel(call, m, uid)) return [];
        // An answered queue call ends with AgentComplete, unless a takeover took it out of the queue.
        if (call.answered && !call.takenOver && !call.originated) return [];
        return this.endVisit(call, call.left ?? arrival, id(call.callId, name, stamp), call.answered ? 'completed' : undefined);
      }
      case 'Hold':
      case 'Unhold': {
        const call = this.callOf(m);
        const hold = name === 'Hold';
        if (!call || !call.answered || call.onHold === hold) return [];
        call.onHold = hold;
        return [{ eventId: id(call.callId, name, uid, stamp), type: hold ? 'call.hold' : 'call.unhold', ts: arrival, callId: call.callId }];
      }
      case 'OriginateResponse':
        return this.originated(m, arrival, stamp);
      case 'QueueMemberAdded':
      case 'QueueMemberRemoved':
      case 'QueueMemberPause':
      case 'QueueMemberStatus':
        return this.memberEvent(name, m, names, member, arrival, stamp);
      default:
        return [];
    }
  }

  /**
   * A caller joins a queue. Each visit is its own call (PRODUCT.md §16): a
   * channel that joins again (overflow after a timeout, a loop back) is the
   * call `<uniqueid>-v<n>` retrying the visit before; a visit still open then
   * (its caller left without an abandon, or was answered and sent back) ends
   * at this join.
   */
  private async join(m: AmiMessage, uid: string, ts: number, stamp: string): Promise<SwitchEvent[]> {
    const queue = header(m, 'Queue') ?? '';
    // A join already read (the same switch time or sequence number): a replay, not a new visit.
    if (this.visits.get(uid)?.joins?.includes(stamp)) return [];
    const open = this.visitOf(uid);
    if (open?.campaign && !open.campaign.queued) return this.campaignJoin(open, open.campaign, queue, ts, stamp);
    const out: SwitchEvent[] = [];
    if (open && !open.originated) {
      // The same join read twice (a replay after a reconnect) while the caller still waits there.
      if (!open.answered && (open.left === null || open.left === undefined) && open.queue === queue) return [];
      out.push(...this.endVisit(open, open.left ?? ts, switchEventId('ast', open.callId, 'rejoin', stamp), open.answered ? 'completed' : undefined));
    }
    const groupId = await this.deps.group(queue);
    if (groupId === undefined) return out;
    const before = this.visits.get(uid);
    const callId = visitCallId(uid, (before?.n ?? 0) + 1);
    this.visits.set(uid, { n: (before?.n ?? 0) + 1, last: callId, joins: [...(before?.joins ?? []), stamp] });
    const did = this.deps.didVar ? chanVariables(m).get(this.deps.didVar) : header(m, 'Exten');
    this.track(
      {
        callId,
        channel: header(m, 'Channel') ?? '',
        answered: false,
        ringing: null,
        agentId: null,
        onHold: false,
        takenOver: false,
        originated: false,
        queuedTs: ts,
        lastTs: ts,
        queue,
      },
      uid,
      header(m, 'Linkedid'),
    );
    const ev: SwitchEvent = { eventId: switchEventId('ast', uid, 'QueueCallerJoin', stamp), type: 'call.queued', ts, callId, groupId, direction: 'inbound' };
    if (callId !== uid) ev.eventId = switchEventId('ast', callId, 'QueueCallerJoin', stamp);
    const caller = number(header(m, 'CallerIDNum'));
    const dialled = number(did);
    if (caller) ev.caller = caller;
    if (dialled) ev.did = dialled;
    if (before) ev.retryOf = before.last;
    return [...out, ev];
  }

  /** Ends a visit: the service ends its ring too, so no member stays ringing after the caller left. */
  private endVisit(call: TrackedCall, ts: number, eventId: string, reason: string | undefined): SwitchEvent[] {
    this.forget(call.callId);
    const ev: SwitchEvent = { eventId, type: 'call.ended', ts: Math.max(ts, call.lastTs ?? 0), callId: call.callId };
    if (reason) ev.reason = reason;
    return [ev];
  }

  /** After the reported ring ended unanswered: the rings that ended meanwhile, then the next member still ringing. */
  private nextOffer(call: TrackedCall, ts: number, ev: (type: string, agentId: number, extra: string) => SwitchEvent): SwitchEvent[] {
    const out: SwitchEvent[] = [];
    for (const r of (call.unreported ?? []).splice(0)) out.push(ev('call.ringing', r.agentId, `late${r.from}`), ev('call.missed', r.agentId, `late${r.to}`));
    const next = [...(call.rung ?? new Map<number, number>()).keys()][0];
    if (next !== undefined) {
      call.ringing = next;
      out.push(ev('call.ringing', next, 'next'));
    }
    return out.map((e) => ({ ...e, ts }));
  }

  /** `from + duration` (HoldTime, TalkTime in seconds), never before the call's last event; else the arrival time. */
  private byDuration(call: TrackedCall, from: number | undefined, duration: string | undefined, arrival: number): number {
    const d = Number(duration);
    if (from === undefined || duration === undefined || duration === '' || !Number.isFinite(d) || d < 0) return arrival;
    return Math.max(from + d, call.lastTs ?? 0);
  }

  private touch(call: TrackedCall, events: SwitchEvent[]): SwitchEvent[] {
    for (const e of events) call.lastTs = Math.max(call.lastTs ?? 0, e.ts);
    return events;
  }

  private isOwnChannel(call: TrackedCall, m: AmiMessage, uid: string): boolean {
    if (call.campaign) return uid === call.campaign.uid;
    if (!call.originated) return uid === call.callId;
    return this.legs.get(uid) === call.callId || chanVariables(m).get('CC_CALL_ID') === call.callId;
  }

  /** The agent leg of a click-to-call answered (Success) or not (Failure). */
  private originated(m: AmiMessage, ts: number, stamp: string): SwitchEvent[] {
    const callId = callIdOfOriginate(header(m, 'ActionID'));
    const call = callId === undefined ? undefined : this.calls.get(callId);
    if (call?.campaign) return this.campaignAnswer(call, call.campaign, m, ts, stamp);
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

  private async memberEvent(name: string, m: AmiMessage, names: Array<string | undefined>, member: string, ts: number, stamp: string): Promise<SwitchEvent[]> {
    const agentId = await this.deps.agent(...names);
    if (agentId === undefined) return [];
    const queue = header(m, 'Queue') ?? '';
    if (member.includes('/')) this.interfaces.set(agentId, member);
    const id = (what: string) => switchEventId('ast', member, name, queue, what, stamp);
    const queues = this.members.get(agentId) ?? new Map<string, string | null>();
    const wasIn = queues.size > 0;
    const wasPaused = [...queues.values()].some((r) => r !== null);
    const out: SwitchEvent[] = [];
    let sip: SwitchEvent | null = null;
    if (name === 'QueueMemberStatus') {
      const sipStatus = sipStatusOf(header(m, 'Status'));
      if (this.sip.get(agentId) !== sipStatus) {
        this.sip.set(agentId, sipStatus);
        sip = { eventId: id(sipStatus), type: 'agent.sip', ts, agentId, sipStatus };
      }
      // A static member (queues.conf) never gets QueueMemberAdded: its status says it is in the queue, paused or not.
      const paused = header(m, 'Paused');
      const known = queues.get(queue);
      if (paused === undefined || (known !== undefined && (known !== null) === (paused === '1'))) return sip ? [sip] : [];
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
    if (sip) out.push(sip);
    if (isIn && !wasPaused && reasons.length > 0) out.push({ eventId: id('break'), type: 'agent.break.start', ts, agentId, reason: reasons[0] });
    if (isIn && wasPaused && reasons.length === 0) out.push({ eventId: id('unbreak'), type: 'agent.break.end', ts, agentId });
    if (wasIn && !isIn) out.push({ eventId: id('logout'), type: 'agent.logout', ts, agentId });
    return out;
  }

  /** The customer's leg answered (Success: the answered channel's Uniqueid) or not (Failure: its Reason, see originateFailureReason). */
  private campaignAnswer(call: TrackedCall, c: CampaignDial, m: AmiMessage, ts: number, stamp: string): SwitchEvent[] {
    if (c.uid !== undefined) return [];
    const id = (t: string) => switchEventId('ast', call.callId, 'OriginateResponse', t, stamp);
    if (!/^success$/i.test(header(m, 'Response') ?? '')) {
      this.forget(call.callId);
      return [{ eventId: id('ended'), type: 'call.ended', ts, callId: call.callId, reason: originateFailureReason(header(m, 'Reason')) }];
    }
    c.uid = header(m, 'Uniqueid') ?? '';
    if (c.uid) this.legs.set(c.uid, call.callId);
    call.channel = header(m, 'Channel') ?? call.channel;
    call.lastTs = ts;
    if (c.amd) return [];
    c.connected = 'human';
    return [{ eventId: id('connected'), type: 'call.connected', ts, callId: call.callId, answeredBy: 'human' }];
  }

  /** `UserEvent(CcAmd,CallId: …,Status: ${AMDSTATUS})` of the campaign dialplan: MACHINE → machine, HUMAN / NOTSURE → human. */
  private userEvent(m: AmiMessage, ts: number, stamp: string): SwitchEvent[] {
    if (!/^ccamd$/i.test(header(m, 'UserEvent') ?? '')) return [];
    const callId = header(m, 'CallId') ?? chanVariables(m).get('CC_CALL_ID');
    const call = (callId === undefined ? undefined : this.calls.get(callId)) ?? this.callOf(m);
    const c = call?.campaign;
    if (!call || !c || c.connected !== undefined) return [];
    c.connected = /^machine$/i.test(header(m, 'Status') ?? '') ? 'machine' : 'human';
    call.lastTs = ts;
    return [{ eventId: switchEventId('ast', call.callId, 'CcAmd', stamp), type: 'call.connected', ts, callId: call.callId, answeredBy: c.connected }];
  }

  /** The answered customer joins the campaign group's queue: from here on a queue call (the queue's events, as inbound). */
  private async campaignJoin(call: TrackedCall, c: CampaignDial, queue: string, ts: number, stamp: string): Promise<SwitchEvent[]> {
    c.queued = true;
    call.originated = false;
    // The join is remembered like an inbound visit's, so a replay of it (after a reconnect) is recognised.
    if (c.uid) this.visits.set(c.uid, { n: 1, last: call.callId, joins: [stamp] });
    call.queue = queue;
    call.queuedTs = ts;
    call.lastTs = ts;
    const groupId = (await this.deps.group(queue)) ?? c.groupId;
    return [{ eventId: switchEventId('ast', call.callId, 'QueueCallerJoin', stamp), ...this.campaignQueued(call, c, groupId, ts) }];
  }

  private campaignQueued(call: TrackedCall, c: CampaignDial, groupId: number, ts: number): Omit<SwitchEvent, 'eventId'> {
    const ev: Omit<SwitchEvent, 'eventId'> = {
      type: 'call.queued',
      ts,
      callId: call.callId,
      groupId,
      direction: 'outbound',
      campaignId: c.campaignId,
      caller: c.customer,
    };
    if (c.did) ev.did = c.did;
    return ev;
  }

  /** Preview / progressive: the dialplan Dials the reserved agent (DialBegin → ringing, DialEnd ANSWER → answered, else missed). */
  private previewDial(name: string, m: AmiMessage, uid: string, ts: number, stamp: string): SwitchEvent[] {
    const call = this.callOf(m);
    const c = call?.campaign;
    if (!call || !c || c.agentId === undefined || uid !== c.uid || call.answered) return [];
    const agentId = c.agentId;
    const id = (t: string) => switchEventId('ast', call.callId, name, t, stamp);
    call.lastTs = ts;
    if (name === 'DialBegin') {
      if (call.ringing !== null) return [];
      call.ringing = agentId;
      const dest = header(m, 'DestUniqueid');
      if (dest) this.legs.set(dest, call.callId);
      call.queuedTs = ts;
      return [
        { eventId: id('queued'), ...this.campaignQueued(call, c, c.groupId, ts) },
        { eventId: id('ringing'), type: 'call.ringing', ts, callId: call.callId, agentId },
      ];
    }
    if (call.ringing === null) return [];
    call.ringing = null;
    if (/^answer$/i.test(header(m, 'DialStatus') ?? '')) {
      call.answered = true;
      call.agentId = agentId;
      call.answeredTs = ts;
      return [{ eventId: id('answered'), type: 'call.answered', ts, callId: call.callId, agentId }];
    }
    return [{ eventId: id('missed'), type: 'call.missed', ts, callId: call.callId, agentId }];
  }

  /**
   * The customer's channel hangs up outside a queue: a machine left (machineAction hangup) → machine;
   * a preview call its agent answered → completed; a person not connected to an agent → abandoned.
   */
  private campaignHangup(call: TrackedCall, c: CampaignDial, m: AmiMessage, uid: string, ts: number, stamp: string): SwitchEvent[] {
    if (c.uid === undefined || uid !== c.uid) return [];
    const out: SwitchEvent[] = [];
    const id = (t: string) => switchEventId('ast', call.callId, 'Hangup', t, stamp);
    if (call.ringing !== null) out.push({ eventId: id('missed'), type: 'call.missed', ts, callId: call.callId, agentId: call.ringing });
    const reason = call.answered ? 'completed' : c.connected === 'machine' ? 'machine' : 'abandoned';
    this.forget(call.callId);
    out.push({ eventId: id('ended'), type: 'call.ended', ts: Math.max(ts, call.lastTs ?? 0), callId: call.callId, reason });
    return out;
  }

  /** Starts following a campaign dial placed by Originate (the customer's line is ringing). */
  trackCampaign(callId: string, dial: CampaignDial, channel: string): void {
    this.track({ callId, channel, answered: false, ringing: null, agentId: null, onHold: false, takenOver: false, originated: true, campaign: dial });
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

/** Asterisk 11's names for what 12+ calls QueueCallerJoin, QueueCallerLeave, QueueMemberPause. */
const OLD_NAMES: Record<string, string> = { Join: 'QueueCallerJoin', Leave: 'QueueCallerLeave', QueueMemberPaused: 'QueueMemberPause' };

export function eventName(raw: string): string {
  return OLD_NAMES[raw] ?? raw;
}

/**
 * A member's names on an event, most specific first: the interface (12+:
 * `Interface`; 11: `Member`, AgentCalled's `AgentCalled`; QueueMember /
 * QueueMemberStatus: `Location`), then its name (`MemberName`, 11's
 * `AgentName`: often `Agent/401` or a person's name), then `StateInterface`.
 */
export function memberNames(m: AmiMessage): Array<string | undefined> {
  const iface =
    header(m, 'Interface') ?? header(m, 'Member') ?? (header(m, 'Event') === 'AgentCalled' ? header(m, 'AgentCalled') : undefined) ?? header(m, 'Location');
  return [iface, header(m, 'MemberName') ?? header(m, 'AgentName') ?? header(m, 'Name'), header(m, 'StateInterface')];
}
