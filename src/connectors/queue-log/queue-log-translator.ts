import type { SwitchEvent } from '../core/api-client.js';
import { switchEventId, visitCallId } from '../core/event-ids.js';
import { KNOWN_VERBS, type QueueLogLine } from './queue-log-line.js';

/** What the translator needs of the name mapping (the core's SwitchMapper). */
export interface QueueLogMapper {
  group(queue: string): number | undefined;
  agent(member: string): number | undefined;
}

/** A call with no exit line is ended (abandoned, or completed when answered) at its last line once the file is this far past it. */
export const STALE_CALL_SECS = 4 * 3600;

interface CallTrack {
  /** The ENTERQUEUE's time as written and its queue (a line written twice is recognised). */
  enteredRaw: string;
  queue: string;
  /** The service's call id of this visit (visitCallId: the line's callid, `-v2`… for later visits of the same channel). */
  callId: string;
  answered: boolean;
  agentId: number | null;
  lastTs: number;
  /** The ENTERQUEUE's time (foreign calls: their first line's). */
  queuedTs: number;
  /** The last offer that ended unanswered (`agentId@time`): RINGCANCELED written beside a RINGNOANSWER for it is the same offer. */
  lastMissed: string;
  /** Entered before this file: its state is the service's, so nothing is synthesised for it. */
  foreign: boolean;
}

interface AgentTrack {
  /** Seen in this file: its login state is known (else a call line first logs it in: a static member). */
  known: boolean;
  loggedIn: boolean;
  paused: boolean;
  queues: Set<string>;
  onCall: string | null;
  /** A pause or logout written while on a call: applied when the call ends (the service refuses both during a call). */
  deferred: SwitchEvent[];
}

const END_REASON: Record<string, 'completed' | 'abandoned' | undefined> = {
  COMPLETECALLER: 'completed',
  COMPLETEAGENT: 'completed',
  TRANSFER: 'completed',
  BLINDTRANSFER: 'completed',
  ATTENDEDTRANSFER: 'completed',
  ABANDON: 'abandoned',
  EXITWITHKEY: 'abandoned',
  // As the AMI connector reports them (a caller who left the queue unanswered), so both paths give the same history.
  EXITWITHTIMEOUT: 'abandoned',
  EXITEMPTY: 'abandoned',
};

/** Where each end verb writes the talk time (seconds), for an answer the file never showed. */
const CALLTIME_FIELD: Record<string, number> = { COMPLETECALLER: 1, COMPLETEAGENT: 1, TRANSFER: 3, BLINDTRANSFER: 3, ATTENDEDTRANSFER: 3 };

function present(v: string | undefined): string | undefined {
  const s = v?.trim();
  return !s || s.toLowerCase() === 'unknown' || s === 'NONE' ? undefined : s;
}

function seconds(v: string | undefined, scale = 1): number {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n / scale : 0;
}

/**
 * queue_log lines (in time order) → telephony events (PRODUCT.md §10).
 * Stateful over one file: which calls are open, answered and by whom, which
 * agents are logged in, paused, on a call. Every event id is derived from
 * the line's own call id, verb, member, queue and time, so importing the
 * same file again gives the same ids (the service counts duplicates).
 */
export class QueueLogTranslator {
  unknownLines = 0;
  private readonly calls = new Map<string, CallTrack>();
  /** Calls of queues that map to no group: their lines are skipped. */
  private readonly skipped = new Set<string>();
  /** Per channel (queue_log callid): the visits reported so far and the last one's call id (a later join retries it). */
  private readonly visits = new Map<string, { n: number; last: string }>();
  private readonly dids = new Map<string, string>();
  private readonly agents = new Map<number, AgentTrack>();
  private lastTime = 0;
  private lastStaleCheck = 0;

  constructor(
    private readonly mapper: QueueLogMapper,
    private readonly emit: (e: SwitchEvent) => void,
  ) {}

  private id(l: QueueLogLine, ...more: string[]): string {
    return switchEventId('ql', l.callId, l.verb, l.agent, l.queue, l.timeRaw, ...more);
  }

  private agentState(agentId: number): AgentTrack {
    let a = this.agents.get(agentId);
    if (!a) {
      a = { known: false, loggedIn: false, paused: false, queues: new Set(), onCall: null, deferred: [] };
      this.agents.set(agentId, a);
    }
    return a;
  }

  /** An agent first seen on a call or pause line is a static member, in the queue all along: logged in at that moment. */
  private ensureLoggedIn(agentId: number, l: QueueLogLine, ts: number): AgentTrack {
    const a = this.agentState(agentId);
    if (!a.known) {
      a.known = true;
      a.loggedIn = true;
      this.emit({ eventId: switchEventId('ql', 'static', l.agent, l.timeRaw), type: 'agent.login', ts, agentId, loginType: 'SIP' });
    }
    return a;
  }

  private memberOf(l: QueueLogLine): number | undefined {
    return present(l.agent) === undefined ? undefined : this.mapper.agent(l.agent);
  }

  /** One line; lines must come in time order (the importer sorts each second). */
  line(l: QueueLogLine): void {
    // Any line dates the file (a call is stale once the file is 4 h past it).
    this.lastTime = Math.max(this.lastTime, l.time);
    if (!KNOWN_VERBS.has(l.verb)) {
      this.unknownLines++;
      if (this.lastTime - this.lastStaleCheck >= 60) this.endStale(this.lastTime);
      return;
    }
    if (l.verb === 'DID') {
      const did = present(l.data[0]);
      if (did) this.dids.set(l.callId, did);
    } else if (l.verb === 'ENTERQUEUE') this.enter(l);
    else if (l.verb === 'RINGNOANSWER' || l.verb === 'RINGCANCELED' || l.verb === 'CONNECT') this.offer(l);
    else if (END_REASON[l.verb] !== undefined) this.end(l);
    else this.agentLine(l);
    if (this.lastTime - this.lastStaleCheck >= 60) this.endStale(this.lastTime);
  }

  /**
   * A queue visit starts. A channel that joins again (overflow after
   * EXITWITHTIMEOUT, a loop back to the same queue) is a new call whose
   * `retryOf` is the earlier visit; a visit still open then (no exit line
   * was written) ends at this join.
   */
  private enter(l: QueueLogLine): void {
    const open = this.calls.get(l.callId);
    if (open && !open.foreign) {
      if (open.enteredRaw === l.timeRaw && open.queue === l.queue) return; // the same line written twice
      this.finish(l.callId, open, l.time, this.id(l, 'left'), open.answered ? 'completed' : 'abandoned');
    } else if (open) this.calls.delete(l.callId);
    this.skipped.delete(l.callId);
    const groupId = this.mapper.group(l.queue);
    if (groupId === undefined) {
      this.skipped.add(l.callId);
      return;
    }
    const caller = present(l.data[1]);
    const did = this.dids.get(l.callId);
    const before = this.visits.get(l.callId);
    const callId = visitCallId(l.callId, (before?.n ?? 0) + 1);
    this.visits.set(l.callId, { n: (before?.n ?? 0) + 1, last: callId });
    this.calls.set(l.callId, {
      callId,
      answered: false,
      agentId: null,
      lastTs: l.time,
      foreign: false,
      enteredRaw: l.timeRaw,
      queue: l.queue,
      lastMissed: '',
      queuedTs: l.time,
    });
    this.emit({
      eventId: this.id(l),
      type: 'call.queued',
      ts: l.time,
      callId,
      groupId,
      ...(caller !== undefined ? { caller } : {}),
      ...(did !== undefined ? { did } : {}),
      ...(before !== undefined ? { retryOf: before.last } : {}),
    });
  }

  /**
   * The open visit of the line's channel. A channel not entered in this file
   * gets one marked foreign (the service knows its state); a line after the
   * channel's last visit ended in this file belongs to no open visit.
   */
  private call(l: QueueLogLine): CallTrack | undefined {
    if (this.skipped.has(l.callId)) return undefined;
    let c = this.calls.get(l.callId);
    if (!c) {
      if (this.visits.has(l.callId)) return undefined;
      c = { callId: l.callId, answered: false, agentId: null, lastTs: l.time, foreign: true, enteredRaw: '', queue: l.queue, lastMissed: '', queuedTs: l.time };
      this.calls.set(l.callId, c);
    }
    return c;
  }

  /**
   * RINGNOANSWER and RINGCANCELED (the caller left while it rang; Asterisk
   * 13+), ring time in ms, and CONNECT (ring time in s, third field): the
   * offer, then its end.
   */
  private offer(l: QueueLogLine): void {
    const c = this.call(l);
    const agentId = this.memberOf(l);
    if (!c || agentId === undefined || c.answered) return;
    if (l.verb === 'RINGCANCELED' && c.lastMissed === `${agentId}@${Math.floor(l.time)}`) return;
    const connect = l.verb === 'CONNECT';
    const ring = connect ? seconds(l.data[2]) : seconds(l.data[0], 1000);
    const at = connect ? this.byWait(c, l, l.data[0]) : l.time;
    const start = Math.max(at - ring, c.lastTs);
    const a = this.ensureLoggedIn(agentId, l, start);
    if (a.onCall !== null && a.onCall !== l.callId) return; // rung while busy (ringinuse): the service keeps one call per agent
    this.emit({ eventId: this.id(l, 'ring'), type: 'call.ringing', ts: start, callId: c.callId, agentId });
    if (connect) {
      this.emit({ eventId: this.id(l), type: 'call.answered', ts: at, callId: c.callId, agentId });
      c.answered = true;
      c.agentId = agentId;
      a.onCall = l.callId;
    } else {
      this.emit({ eventId: this.id(l), type: 'call.missed', ts: l.time, callId: c.callId, agentId });
      c.lastMissed = `${agentId}@${Math.floor(l.time)}`;
    }
    c.lastTs = at;
  }

  /**
   * When the switch's own wait field (CONNECT's holdtime, an exit's
   * waittime) dates the line: the ENTERQUEUE's time plus that wait. The
   * line's time is whole seconds (realtime tables) and a second off the
   * wait Asterisk measured, so the wait the service reports is the switch's.
   * Used only when it agrees with the line's time within 2 s and keeps the
   * call's events in order.
   */
  private byWait(c: CallTrack, l: QueueLogLine, field: string | undefined): number {
    const wait = Number(field);
    if (c.foreign || field === undefined || field === '' || !Number.isFinite(wait) || wait < 0) return l.time;
    const at = c.queuedTs + wait;
    return Math.abs(at - l.time) <= 2 && at >= c.lastTs ? at : l.time;
  }

  private end(l: QueueLogLine): void {
    const c = this.call(l);
    if (!c) return;
    let reason = END_REASON[l.verb];
    const field = CALLTIME_FIELD[l.verb];
    if (reason === 'completed' && !c.answered && !c.foreign) {
      // ATTENDEDTRANSFER (or a completion) without CONNECT: the member answered; the talk time dates the answer.
      const agentId = this.memberOf(l);
      if (agentId !== undefined) {
        const start = Math.max(l.time - seconds(field === undefined ? undefined : l.data[field]), c.lastTs);
        const a = this.ensureLoggedIn(agentId, l, start);
        this.emit({ eventId: this.id(l, 'ring'), type: 'call.ringing', ts: start, callId: c.callId, agentId });
        this.emit({ eventId: this.id(l, 'answer'), type: 'call.answered', ts: start, callId: c.callId, agentId });
        c.answered = true;
        c.agentId = agentId;
        a.onCall = l.callId;
      } else reason = undefined;
    }
    if (c.foreign && reason === 'completed') reason = undefined; // the service knows whether it was answered
    // ABANDON, EXITWITHTIMEOUT, EXITEMPTY: position|origposition|waittime; EXITWITHKEY: key|position|origposition|waittime.
    const at = reason === 'abandoned' ? this.byWait(c, l, l.data[l.verb === 'EXITWITHKEY' ? 3 : 2]) : Math.max(l.time, c.lastTs);
    this.finish(l.callId, c, at, this.id(l), reason);
  }

  /** Ends the open visit of channel `channel` (its DID stays: a later visit of the channel has the same). */
  private finish(channel: string, c: CallTrack, ts: number, eventId: string, reason: string | undefined): void {
    this.emit({ eventId, type: 'call.ended', ts, callId: c.callId, ...(reason !== undefined ? { reason } : {}) });
    this.calls.delete(channel);
    if (!this.visits.has(channel)) this.dids.delete(channel);
    const callId = channel;
    if (c.agentId === null) return;
    const a = this.agents.get(c.agentId);
    if (!a || a.onCall !== callId) return;
    a.onCall = null;
    for (const e of a.deferred.splice(0)) this.emit({ ...e, ts });
  }

  private agentLine(l: QueueLogLine): void {
    const agentId = this.memberOf(l);
    if (agentId === undefined) return;
    const agent = (e: Omit<SwitchEvent, 'eventId' | 'ts' | 'agentId'>): SwitchEvent => ({ eventId: this.id(l), ts: l.time, agentId, ...e }) as SwitchEvent;
    switch (l.verb) {
      case 'ADDMEMBER':
      case 'AGENTLOGIN': {
        const a = this.agentState(agentId);
        a.known = true;
        a.queues.add(l.queue);
        if (!a.loggedIn) this.emit(agent({ type: 'agent.login', loginType: 'SIP' }));
        a.loggedIn = true;
        return;
      }
      case 'REMOVEMEMBER':
      case 'AGENTLOGOFF': {
        const a = this.agentState(agentId);
        const wasKnown = a.known;
        a.known = true;
        if (l.verb === 'AGENTLOGOFF') a.queues.clear();
        else a.queues.delete(l.queue);
        if (a.queues.size > 0 || (wasKnown && !a.loggedIn)) return;
        a.loggedIn = false;
        a.paused = false;
        const e = agent({ type: 'agent.logout' });
        if (a.onCall !== null) a.deferred.push(e);
        else this.emit(e);
        return;
      }
      case 'PAUSE':
      case 'PAUSEREASON': {
        const a = this.ensureLoggedIn(agentId, l, l.time);
        if (a.paused) return;
        a.paused = true;
        const reason = present(l.data[0]);
        const e = agent({ type: 'agent.break.start', ...(reason !== undefined ? { reason } : {}) });
        if (a.onCall !== null) a.deferred.push(e);
        else this.emit(e);
        return;
      }
      case 'UNPAUSE': {
        const a = this.ensureLoggedIn(agentId, l, l.time);
        if (!a.paused) return;
        a.paused = false;
        const pending = a.deferred.findIndex((e) => e.type === 'agent.break.start');
        if (pending >= 0) a.deferred.splice(pending, 1);
        else this.emit(agent({ type: 'agent.break.end' }));
        return;
      }
    }
  }

  /** Calls whose last line is 4 h behind `now` (the file's time) end at that last line. */
  endStale(now: number): void {
    this.lastStaleCheck = now;
    for (const [callId, c] of this.calls) {
      if (c.lastTs >= now - STALE_CALL_SECS) continue;
      this.finish(callId, c, c.lastTs, switchEventId('ql', c.callId, 'STALE', c.lastTs), c.answered ? 'completed' : 'abandoned');
    }
  }
}
