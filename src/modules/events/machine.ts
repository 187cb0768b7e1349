import type { CallOutcome, CallRecording } from '../calls/call-record.js';
import { DIAL_FAILURES, type Rejection, type TelephonyEvent } from './event-types.js';
import { localDay } from '../../time/zone.js';
import { applyAgentEvent } from './agent-events.js';
import { PAST_AFTER_SECS, type AgentHistory } from './agent-history.js';
import { spanOf, type AgentSpan } from './agent-time.js';
import type { LateCorrections } from './late-events.js';
import { isAvailable, newAgent, queuedCall, type AgentLive, type CallLive, type EndedCall } from './live.types.js';

export type { EndedCall };

export interface Takeover {
  callId: string;
  from: number | null;
  to: number;
  caller: string | null;
  ts: number;
  seq: number;
}

/**
 * The call and agent state machines over one batch's working set (the rows
 * the batch touches, loaded up front). Each event is checked against the
 * state the previous ones left and either applied or rejected with nothing
 * changed (checks all come before the first change). docs/events.md §1–2.
 */
export class LiveMachine {
  readonly dirtyAgents = new Map<number, AgentLive>();
  readonly dirtyCalls = new Map<string, CallLive>();
  readonly ended: EndedCall[] = [];
  readonly takeovers: Takeover[] = [];
  /** Recordings reported by this batch (`call.recording`), for live and finished calls. */
  readonly recordings: Array<CallRecording & { callId: string }> = [];
  /** Agent state spans closed by this batch (the reports' agent time). */
  readonly spans: AgentSpan[] = [];

  constructor(
    private readonly tz: string,
    /** Non-deleted agents of the account among those the batch names (null: no live row yet). */
    private readonly agents: Map<number, AgentLive | null>,
    readonly calls: Map<string, CallLive>,
    /** Calls already in the history (and those ended by this batch). */
    private readonly endedIds: Set<string>,
    private readonly groups: Set<number>,
    /** Corrections of finished calls by late events (call.missed after call.ended). */
    readonly late: LateCorrections,
    /** Agents' past states, loaded for the agents this batch has past events for. */
    readonly history: AgentHistory,
    /** Recording paths of this batch that another account already reported. */
    private readonly foreignPaths: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * A past event: older than the agent's live state by more than a reordering
   * (agent-history.ts). It is judged against the agent's state at its own time
   * and changes only the history, never the live row.
   */
  isPast(a: AgentLive, ts: number): boolean {
    return ts < a.lastTs - PAST_AFTER_SECS && this.history.loaded(a.agentId);
  }

  /** The agent as a past event at `ts` sees it: its state then (a detached copy). */
  pastState(a: AgentLive, ts: number): AgentLive {
    return this.history.stateAt(a.agentId, ts);
  }

  /**
   * Applies `change` to a past state at `t`: recorded in the history; of the
   * live row only the "today" counters move, when `t` is in its day.
   */
  mutatePast(live: AgentLive, past: AgentLive, t: number, seq: number, change: (a: AgentLive) => void): void {
    const calls = past.calls;
    const talk = past.talkSecs;
    change(past);
    past.lastTs = Math.max(past.lastTs, t);
    this.history.record(past, t, seq);
    if ((past.calls !== calls || past.talkSecs !== talk) && localDay(t, this.tz).key === live.dayKey) {
      live.calls += past.calls - calls;
      live.talkSecs += past.talkSecs - talk;
      live.seq = seq;
      this.dirtyAgents.set(live.agentId, live);
    }
  }

  /** Whether the live row of the agent is ringing or on this call (else the call is the agent's past). */
  private bound(a: AgentLive, callId: string): boolean {
    return a.ringCall === callId || a.callId === callId;
  }

  /** The state a call event sees of its agent: the live row, or the state at `t` when the call is in the agent's past. */
  private callSide(a: AgentLive, callId: string, t: number): AgentLive | null {
    if (this.bound(a, callId) || !this.history.loaded(a.agentId)) return null;
    return this.pastState(a, t);
  }

  agent(id: number): AgentLive | undefined {
    if (!this.agents.has(id)) return undefined;
    let a = this.agents.get(id) ?? null;
    if (!a) {
      a = newAgent(id);
      this.agents.set(id, a);
    }
    return a;
  }

  /** Applies `change` to the agent at time `t`, keeping the available-time and "today" counters right. */
  mutateAgent(a: AgentLive, t: number, seq: number, change: (a: AgentLive) => void): void {
    const day = localDay(t, this.tz);
    if (a.dayKey !== day.key) {
      a.dayKey = day.key;
      a.availSecs = 0;
      a.talkSecs = 0;
      a.calls = 0;
    }
    // The state held since the agent's last change ends here (a.lastTs only moves in this method).
    const span = spanOf(a, a.lastTs, t, a.callId !== null && (this.calls.get(a.callId)?.onHold ?? false));
    if (span) this.spans.push(span);
    const was = isAvailable(a);
    change(a);
    const now = isAvailable(a);
    if (was && !now) {
      a.availSecs += Math.max(0, t - Math.max(a.availSince ?? t, day.start));
      a.availSince = null;
    } else if (!was && now) {
      a.availSince = t;
    }
    a.lastTs = Math.max(a.lastTs, t);
    a.seq = seq;
    this.dirtyAgents.set(a.agentId, a);
    this.history.record(a, t, seq);
  }

  touchCall(c: CallLive, t: number, seq: number): void {
    c.lastTs = Math.max(c.lastTs, t);
    c.seq = seq;
    this.dirtyCalls.set(c.callId, c);
  }

  /** Whether the call is live or ended (in the history or this batch). */
  knows(callId: string): boolean {
    return this.calls.has(callId) || this.endedIds.has(callId);
  }

  private liveCall(callId: string): CallLive | Rejection {
    const c = this.calls.get(callId);
    if (c) return c;
    if (this.endedIds.has(callId)) return [1012, `No data found: call ${callId} has ended`];
    return [1012, `No data found: call ${callId} was never queued`];
  }

  apply(ev: TelephonyEvent, seq: number): Rejection | null {
    return ev.type.startsWith('agent.') ? applyAgentEvent(this, ev, seq) : this.applyCall(ev, seq);
  }

  private applyCall(ev: TelephonyEvent, seq: number): Rejection | null {
    const callId = ev.callId!;
    if (ev.type === 'call.queued') {
      if (this.calls.has(callId) || this.endedIds.has(callId)) return [1524, `Invalid action: call ${callId} already exists`];
      if (ev.groupId !== undefined && !this.groups.has(ev.groupId)) return [1006, `Group id does not exist: ${ev.groupId}`];
      const c = queuedCall(callId, ev.ts, seq, ev);
      this.calls.set(callId, c);
      this.touchCall(c, ev.ts, seq);
      return null;
    }
    if (ev.type === 'call.recording') return this.recording(ev, seq);
    if (ev.type === 'call.missed' && !this.calls.has(callId) && this.endedIds.has(callId)) {
      return this.late.missed(
        ev,
        this.ended.find((e) => e.call.callId === callId),
      );
    }
    const found = this.liveCall(callId);
    if (Array.isArray(found)) return found;
    const c = found;
    switch (ev.type) {
      case 'call.ringing':
        return this.ringing(c, ev, seq);
      case 'call.missed': {
        if (c.state !== 'ringing' || (ev.agentId !== undefined && ev.agentId !== c.ringAgent)) {
          return [1524, `Invalid action: call ${callId} is not ringing agent ${ev.agentId ?? ''}`.trim()];
        }
        const a = this.agent(c.ringAgent!);
        const t = Math.max(ev.ts, c.lastTs, a && this.bound(a, callId) ? a.lastTs : 0);
        this.closeRing(c, t, seq, false);
        c.state = 'queued';
        this.touchCall(c, t, seq);
        return null;
      }
      case 'call.answered': {
        const live = this.agent(ev.agentId!);
        if (!live) return [1509, `Invalid agent id: agent ${ev.agentId}`];
        const past = this.callSide(live, callId, Math.max(ev.ts, c.lastTs));
        const a = past ?? live;
        if (!a.loggedIn) return [1043, `Agent is not logged in: agent ${a.agentId}`];
        if (c.state !== 'ringing' || c.ringAgent !== a.agentId) return [1524, `Invalid action: call ${callId} is not ringing agent ${a.agentId}`];
        const t = Math.max(ev.ts, c.lastTs, a.lastTs);
        this.closeRing(c, t, seq, true);
        this.connect(c, live, t, seq, c.hits.length - 1, past !== null);
        return null;
      }
      case 'call.hold':
        if (c.state !== 'connected' || c.onHold) return [1524, `Invalid action: call ${callId} is not connected or already on hold`];
        this.holdChanges(c, Math.max(ev.ts, c.lastTs), seq);
        c.onHold = true;
        c.holdAt = Math.max(ev.ts, c.lastTs);
        this.touchCall(c, c.holdAt, seq);
        return null;
      case 'call.unhold': {
        if (!c.onHold) return [1524, `Invalid action: call ${callId} is not on hold`];
        const t = Math.max(ev.ts, c.lastTs);
        this.holdChanges(c, t, seq);
        this.closeHold(c, t);
        c.onHold = false;
        c.holdAt = null;
        this.touchCall(c, t, seq);
        return null;
      }
      case 'call.ended':
        return this.end(c, ev, seq);
      default:
        return [1001, `Invalid data type or value: type ${ev.type}`];
    }
  }

  /**
   * `call.recording`: accepted for a live call and for one already ended (a
   * switch often finishes writing the file after the hang-up); stored at once,
   * apart from the live state, so it never changes a finished call's figures.
   */
  private recording(ev: TelephonyEvent, seq: number): Rejection | null {
    const callId = ev.callId!;
    if (!this.calls.has(callId) && !this.endedIds.has(callId)) return [1012, `No data found: call ${callId} was never queued`];
    if (ev.agentId !== undefined && !this.agents.has(ev.agentId)) return [1509, `Invalid agent id: agent ${ev.agentId}`];
    if (this.foreignPaths.has(ev.path!)) return [1524, `Invalid action: recording path ${ev.path} belongs to another account`];
    this.recordings.push({ callId, seq, agentId: ev.agentId ?? null, path: ev.path!, at: ev.ts });
    return null;
  }

  /** Hold time up to `t` goes to the call and to the connected leg; an open hold carries on from `t`. */
  private closeHold(c: CallLive, t: number): void {
    if (!c.onHold) return;
    const secs = Math.max(0, t - (c.holdAt ?? t));
    c.holdSecs += secs;
    const leg = c.legs[c.legs.length - 1];
    if (leg && leg[3] === null) leg[4] += secs;
    c.holdAt = t;
  }

  /** The connected agent's talk/hold span ends when the call goes on or off hold (before the flag flips). */
  private holdChanges(c: CallLive, t: number, seq: number): void {
    const a = c.agentId !== null ? this.agent(c.agentId) : undefined;
    if (a && a.callId === c.callId) this.mutateAgent(a, t, seq, () => {});
  }

  private ringing(c: CallLive, ev: TelephonyEvent, seq: number): Rejection | null {
    const live = this.agent(ev.agentId!);
    if (!live) return [1509, `Invalid agent id: agent ${ev.agentId}`];
    const past = this.isPast(live, ev.ts) ? this.pastState(live, ev.ts) : null;
    const a = past ?? live;
    if (!a.loggedIn) return [1043, `Agent is not logged in: agent ${a.agentId}`];
    if (c.state !== 'queued') return [1524, `Invalid action: call ${c.callId} is already ${c.state}`];
    if (a.breakReason !== null) return [1524, `Invalid action: agent ${a.agentId} is on break`];
    if (a.wrapupAt !== null) return [1524, `Invalid action: agent ${a.agentId} is in wrap-up`];
    if (a.ringCall !== null || a.callId !== null) return [1524, `Invalid action: agent ${a.agentId} is ringing or on another call`];
    const t = Math.max(ev.ts, c.lastTs, a.lastTs);
    c.state = 'ringing';
    c.ringAgent = a.agentId;
    c.ringAt = t;
    c.hits.push([a.agentId, t, null, 0]);
    this.touchCall(c, t, seq);
    const ring = (x: AgentLive) => {
      x.ringCall = c.callId;
      x.ringAt = t;
    };
    if (past) this.mutatePast(live, past, t, seq, ring);
    else this.mutateAgent(live, t, seq, ring);
    return null;
  }

  /** Ends the open offer of a ringing call (answered or not) and frees the ringing agent. */
  closeRing(c: CallLive, t: number, seq: number, answered: boolean): void {
    if (c.state !== 'ringing' || c.ringAgent === null) return;
    const hit = c.hits[c.hits.length - 1];
    if (hit && hit[2] === null) {
      hit[2] = Math.max(0, t - hit[1]);
      hit[3] = answered ? 1 : 0;
    }
    const a = this.agent(c.ringAgent);
    const stop = (x: AgentLive) => {
      x.ringCall = null;
      x.ringAt = null;
    };
    if (a && a.ringCall === c.callId) this.mutateAgent(a, t, seq, stop);
    else if (a) {
      const past = this.callSide(a, c.callId, t);
      if (past?.ringCall === c.callId) this.mutatePast(a, past, t, seq, stop);
    }
    c.ringAgent = null;
    c.ringAt = null;
  }

  /**
   * Connects the call to agent `a` (its live row) at `t`; `hit` the answered offer's index, -1 for a takeover;
   * `past`: in the agent's past, recorded in its history only.
   */
  connect(c: CallLive, a: AgentLive, t: number, seq: number, hit: number, past = false): void {
    c.legs.push([a.agentId, hit, t, null, 0]);
    c.state = 'connected';
    c.agentId = a.agentId;
    c.answeredAt ??= t;
    c.agentSince = t;
    this.touchCall(c, t, seq);
    const join = (x: AgentLive) => {
      x.callId = c.callId;
      x.callAt = t;
      x.calls += 1;
      x.lastCall = c.callId;
    };
    if (past) this.mutatePast(a, this.pastState(a, t), t, seq, join);
    else this.mutateAgent(a, t, seq, join);
  }

  /** The connected agent leaves the call: its talk time counts to the day it ends. */
  release(c: CallLive, t: number, seq: number, wrapup: boolean): number | null {
    if (c.agentId === null) return null;
    const prev = c.agentId;
    this.closeHold(c, t);
    const leg = c.legs[c.legs.length - 1];
    if (leg && leg[3] === null) leg[3] = t;
    const a = this.agent(prev);
    const leave = (x: AgentLive) => {
      x.talkSecs += Math.max(0, t - (x.callAt ?? t));
      x.callId = null;
      x.callAt = null;
      if (wrapup && x.loggedIn) {
        x.wrapupAt = t;
        x.wrapCall = c.callId;
      }
    };
    if (a && a.callId === c.callId) this.mutateAgent(a, t, seq, leave);
    else if (a) {
      const past = this.callSide(a, c.callId, t);
      if (past?.callId === c.callId) this.mutatePast(a, past, t, seq, leave);
    }
    return prev;
  }

  private end(c: CallLive, ev: TelephonyEvent, seq: number): Rejection | null {
    if (ev.reason === 'completed' && c.answeredAt === null) return [1524, `Invalid action: call ${c.callId} was never answered, it cannot complete`];
    const agent = c.agentId !== null ? this.agent(c.agentId) : undefined;
    const t = Math.max(ev.ts, c.lastTs, agent && this.bound(agent, c.callId) ? agent.lastTs : 0);
    this.closeRing(c, t, seq, false);
    if (c.onHold) this.holdChanges(c, t, seq);
    this.release(c, t, seq, false);
    this.closeHold(c, t);
    c.onHold = false;
    c.holdAt = null;
    c.lastTs = t;
    c.seq = seq;
    this.calls.delete(c.callId);
    this.dirtyCalls.delete(c.callId);
    this.endedIds.add(c.callId);
    // An outbound dial's own reasons (no_answer, busy, machine) are a failed call in the history; the dialer keeps the reason.
    const outcome =
      ev.reason !== undefined && DIAL_FAILURES.has(ev.reason)
        ? 'failed'
        : ((ev.reason as CallOutcome | undefined) ?? (c.answeredAt !== null ? 'completed' : 'abandoned'));
    this.ended.push({ call: c, endedAt: t, outcome, reason: ev.reason ?? null });
    return null;
  }
}
