import { Rng } from './rng.js';
import { Timeline } from './timeline.js';
import type { SimEvent } from './types.js';

/**
 * The switch's side of campaign dials (PRODUCT.md §13, `callcenter simulate
 * --outbound`): a seeded, discrete-event model that takes the service's
 * `call.originate` commands and answers them as a switch and its agents
 * would — the customer's line rings, is busy, is never answered, or is
 * answered by a person or a machine after a delay; a person is connected to
 * the reserved agent (progressive, preview) or the group's longest-idle free
 * agent (predictive), or, with nobody free within `connectSecs`, hears the
 * campaign's message and is hung up on (`abandoned`); agents talk and wrap
 * up. Pure: the runner feeds commands and time in and sends the events out.
 */

export interface OutboundConfig {
  /** Time multiplier: every duration of the model is divided by it (the service's connectSecs is not: the law's 2 s are real). */
  speed: number;
  /** Shares of dials answered by a person, by a machine, and busy; the rest ring out (no answer). */
  humanShare: number;
  machineShare: number;
  busyShare: number;
  /** An answered line answers this many seconds after the dial (uniform); beyond the command's ringSecs it is no answer. */
  answerMinSecs: number;
  answerMaxSecs: number;
  /** Mean talk seconds of a person (exponential, at least 5 s), and of a machine passed to an agent (uniform 0.5–1.5 ×). */
  talkSecs: number;
  machineTalkSecs: number;
  /** Mean wrap-up seconds after a call (uniform 0.5–1.5 ×). */
  wrapupSecs: number;
  /** Seconds an agent takes to pick up a connected customer (well inside the 2-second rule). */
  agentPickupSecs: number;
}

export const DEFAULT_OUTBOUND: OutboundConfig = {
  speed: 1,
  humanShare: 0.25,
  machineShare: 0.1,
  busyShare: 0.05,
  answerMinSecs: 5,
  answerMaxSecs: 25,
  talkSecs: 120,
  machineTalkSecs: 10,
  wrapupSecs: 10,
  agentPickupSecs: 0.5,
};

/** `call.originate` of a campaign dial as the stream pushes it (docs/campaigns.md, "For an integrator"). */
export interface DialCommand {
  callId: string;
  campaignId: string;
  customer: string;
  did: string | null;
  groupId: number;
  /** Progressive and preview: the reserved agent. */
  agentId?: number;
  ringSecs: number;
  amd: boolean;
  machineAction: 'hangup' | 'agent';
  connectSecs: number;
}

/** Whether a `call.originate` payload is a campaign dial this model can place. */
export function isDialCommand(data: Record<string, unknown>): data is Record<string, unknown> & DialCommand {
  return typeof data.callId === 'string' && typeof data.campaignId === 'string' && typeof data.groupId === 'number' && typeof data.ringSecs === 'number';
}

export interface OutboundStats {
  dials: number;
  human: number;
  machine: number;
  noAnswer: number;
  busy: number;
  /** Connected to an agent (a person, or a machine passed on). */
  connected: number;
  /** People hung up on after connectSecs without an agent. */
  abandoned: number;
  /** Agent seconds (summed over agents): logged in, talking, in wrap-up. */
  loggedInSecs: number;
  talkSecs: number;
  wrapupSecs: number;
  events: number;
}

type AgentState = 'free' | 'reserved' | 'ringing' | 'talking' | 'wrapup';
interface Agent {
  id: number;
  groups: number[];
  state: AgentState;
  /** When the agent last became free (longest-idle first). */
  freeSince: number;
  call: string | null;
  stateSince: number;
}
type CallState = 'dialing' | 'waiting' | 'talking';
interface Call {
  cmd: DialCommand;
  state: CallState;
  agentId: number | null;
  /** The line was answered by a machine (passed to an agent: short talk). */
  machine: boolean;
  /** The line was answered (by a person or a machine). */
  answered: boolean;
}
type Item =
  | { kind: 'answer'; callId: string; by: 'human' | 'machine' }
  | { kind: 'end'; callId: string; reason: 'no_answer' | 'busy' | 'machine' | 'completed' | 'abandoned' }
  | { kind: 'pickup'; callId: string }
  | { kind: 'wrapupEnd'; agentId: number };

export class OutboundModel {
  readonly stats: OutboundStats = {
    dials: 0,
    human: 0,
    machine: 0,
    noAnswer: 0,
    busy: 0,
    connected: 0,
    abandoned: 0,
    loggedInSecs: 0,
    talkSecs: 0,
    wrapupSecs: 0,
    events: 0,
  };
  private readonly rng: Rng;
  private readonly timeline = new Timeline<Item>();
  private readonly agents = new Map<number, Agent>();
  private readonly calls = new Map<string, Call>();
  /** Per group, the people answered and waiting for an agent, oldest first. */
  private readonly waiting = new Map<number, string[]>();
  private out: SimEvent[] = [];
  private seq = 0;
  private loggedInAt: number;
  now: number;

  constructor(
    private readonly cfg: OutboundConfig,
    groups: Array<{ groupId: number; agentIds: number[] }>,
    private readonly opts: { seed: number; start: number; runId: string },
  ) {
    this.rng = new Rng(opts.seed);
    this.now = opts.start;
    this.loggedInAt = opts.start;
    for (const g of groups)
      for (const id of g.agentIds) {
        const a = this.agents.get(id) ?? { id, groups: [], state: 'free' as const, freeSince: opts.start, call: null, stateSince: opts.start };
        a.groups.push(g.groupId);
        this.agents.set(id, a);
      }
  }

  get callsInProgress(): number {
    return this.calls.size;
  }

  /** Agents free now (not reserved, ringing, talking or wrapping up). */
  get freeAgents(): number {
    let n = 0;
    for (const a of this.agents.values()) if (a.state === 'free') n++;
    return n;
  }

  private dur(secs: number): number {
    return secs / this.cfg.speed;
  }

  private emit(e: Omit<SimEvent, 'eventId' | 'ts'>): void {
    this.out.push({ eventId: `${this.opts.runId}-o${++this.seq}`, ts: Math.round(this.now * 1000) / 1000, ...e });
    this.stats.events++;
  }

  private take(): SimEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  /** Logs every agent in (the run's start). */
  login(): SimEvent[] {
    for (const a of this.agents.values()) this.emit({ type: 'agent.login', agentId: a.id, loginType: 'Web' });
    return this.take();
  }

  private setAgent(a: Agent, state: AgentState, call: string | null): void {
    const spent = this.now - a.stateSince;
    if (a.state === 'talking') this.stats.talkSecs += spent;
    if (a.state === 'wrapup') this.stats.wrapupSecs += spent;
    a.state = state;
    a.call = call;
    a.stateSince = this.now;
    if (state === 'free') a.freeSince = this.now;
  }

  /** A dial the service asked for: the customer's line starts ringing now. */
  originate(cmd: DialCommand, at: number): SimEvent[] {
    this.advanceClock(at);
    if (this.calls.has(cmd.callId)) return [];
    this.stats.dials++;
    const call: Call = { cmd, state: 'dialing', agentId: null, machine: false, answered: false };
    this.calls.set(cmd.callId, call);
    if (cmd.agentId !== undefined) {
      const a = this.agents.get(cmd.agentId);
      // The service reserved a free agent; one this model does not drive (or thinks busy) still answers it.
      if (a && a.state === 'free') this.setAgent(a, 'reserved', cmd.callId);
    }
    this.emit({
      type: 'call.dialing',
      callId: cmd.callId,
      campaignId: cmd.campaignId,
      caller: cmd.customer,
      ...(cmd.did ? { did: cmd.did } : {}),
      direction: 'outbound',
    });
    const r = this.rng.next();
    const ring = this.dur(cmd.ringSecs);
    if (r < this.cfg.busyShare) {
      this.timeline.push(this.now + this.dur(this.rng.uniform(1, 4)), { kind: 'end', callId: cmd.callId, reason: 'busy' });
    } else if (r < this.cfg.busyShare + this.cfg.humanShare + this.cfg.machineShare) {
      const by = r < this.cfg.busyShare + this.cfg.humanShare ? 'human' : 'machine';
      const after = this.dur(this.rng.uniform(this.cfg.answerMinSecs, this.cfg.answerMaxSecs));
      if (after < ring) this.timeline.push(this.now + after, { kind: 'answer', callId: cmd.callId, by });
      else this.timeline.push(this.now + ring, { kind: 'end', callId: cmd.callId, reason: 'no_answer' });
    } else {
      this.timeline.push(this.now + ring, { kind: 'end', callId: cmd.callId, reason: 'no_answer' });
    }
    return this.take();
  }

  private advanceClock(t: number): void {
    if (t > this.now) this.now = t;
  }

  /** Runs the model up to `t`; answers the events it produced, in time order. */
  advanceTo(t: number): SimEvent[] {
    for (;;) {
      const next = this.timeline.pop(t);
      if (!next) break;
      this.advanceClock(next.at);
      this.handle(next.item);
    }
    this.advanceClock(t);
    return this.take();
  }

  private handle(item: Item): void {
    if (item.kind === 'wrapupEnd') {
      const a = this.agents.get(item.agentId);
      if (!a || a.state !== 'wrapup') return;
      this.emit({ type: 'agent.wrapup.end', agentId: a.id });
      this.setAgent(a, 'free', null);
      this.serveWaiting(a);
      return;
    }
    const call = this.calls.get(item.callId);
    if (!call) return;
    if (item.kind === 'answer') return this.answer(call, item.by);
    if (item.kind === 'pickup') return this.pickup(call);
    this.end(call, item.reason);
  }

  private answer(call: Call, by: 'human' | 'machine'): void {
    const { cmd } = call;
    call.answered = true;
    if (by === 'machine') {
      this.stats.machine++;
      call.machine = true;
      if (cmd.amd) {
        this.emit({ type: 'call.connected', callId: cmd.callId, answeredBy: 'machine' });
        if (cmd.machineAction === 'hangup') return this.end(call, 'machine');
        return this.connect(call);
      }
      // Without detection the switch cannot tell: it connects the machine as it would a person.
    } else this.stats.human++;
    this.emit({ type: 'call.connected', callId: cmd.callId, answeredBy: 'human' });
    this.connect(call);
  }

  /** The answered customer goes to the reserved agent, or the group's longest-idle free one, or waits connectSecs for one. */
  private connect(call: Call): void {
    const { cmd } = call;
    this.emit({ type: 'call.queued', callId: cmd.callId, groupId: cmd.groupId, campaignId: cmd.campaignId, caller: cmd.customer, direction: 'outbound' });
    const reserved = cmd.agentId !== undefined ? this.agents.get(cmd.agentId) : undefined;
    if (cmd.agentId !== undefined && (!reserved || reserved.call === cmd.callId)) {
      // Progressive / preview: the agent was on the line first.
      this.emit({ type: 'call.ringing', callId: cmd.callId, agentId: cmd.agentId });
      if (reserved) this.setAgent(reserved, 'ringing', cmd.callId);
      call.agentId = cmd.agentId;
      this.pickup(call);
      return;
    }
    const agent = this.longestIdle(cmd.groupId);
    if (agent) return this.offer(call, agent);
    call.state = 'waiting';
    this.waiting.set(cmd.groupId, [...(this.waiting.get(cmd.groupId) ?? []), cmd.callId]);
    // The law's clock, not the model's: nobody free within connectSecs, the person is abandoned.
    this.timeline.push(this.now + cmd.connectSecs, { kind: 'end', callId: cmd.callId, reason: 'abandoned' });
  }

  private longestIdle(groupId: number): Agent | undefined {
    let best: Agent | undefined;
    for (const a of this.agents.values()) if (a.state === 'free' && a.groups.includes(groupId) && (!best || a.freeSince < best.freeSince)) best = a;
    return best;
  }

  private offer(call: Call, agent: Agent): void {
    call.agentId = agent.id;
    call.state = 'dialing';
    this.setAgent(agent, 'ringing', call.cmd.callId);
    this.emit({ type: 'call.ringing', callId: call.cmd.callId, agentId: agent.id });
    this.timeline.push(this.now + this.dur(this.cfg.agentPickupSecs), { kind: 'pickup', callId: call.cmd.callId });
  }

  private pickup(call: Call): void {
    const agentId = call.agentId!;
    this.emit({ type: 'call.answered', callId: call.cmd.callId, agentId });
    const a = this.agents.get(agentId);
    if (a) this.setAgent(a, 'talking', call.cmd.callId);
    call.state = 'talking';
    this.stats.connected++;
    const talk = call.machine ? this.cfg.machineTalkSecs * this.rng.uniform(0.5, 1.5) : Math.max(5, this.rng.exp(this.cfg.talkSecs));
    this.timeline.push(this.now + this.dur(talk), { kind: 'end', callId: call.cmd.callId, reason: 'completed' });
  }

  private end(call: Call, reason: 'no_answer' | 'busy' | 'machine' | 'completed' | 'abandoned'): void {
    const { cmd } = call;
    if (reason === 'abandoned' && call.state !== 'waiting') return; // an agent took the person in time
    this.calls.delete(cmd.callId);
    if (reason === 'no_answer') this.stats.noAnswer++;
    if (reason === 'busy') this.stats.busy++;
    if (reason === 'abandoned') {
      this.stats.abandoned++;
      const q = this.waiting.get(cmd.groupId) ?? [];
      this.waiting.set(
        cmd.groupId,
        q.filter((id) => id !== cmd.callId),
      );
    }
    this.emit({ type: 'call.ended', callId: cmd.callId, reason });
    const a = call.agentId !== null ? this.agents.get(call.agentId) : cmd.agentId !== undefined ? this.agents.get(cmd.agentId) : undefined;
    if (!a || a.call !== cmd.callId) return;
    if (a.state === 'talking') {
      this.setAgent(a, 'wrapup', null);
      this.emit({ type: 'agent.wrapup.start', agentId: a.id });
      this.timeline.push(this.now + this.dur(this.cfg.wrapupSecs * this.rng.uniform(0.5, 1.5)), { kind: 'wrapupEnd', agentId: a.id });
    } else {
      // A reserved agent whose customer never answered is free again at once.
      this.setAgent(a, 'free', null);
      this.serveWaiting(a);
    }
  }

  /** A free agent takes the oldest person waiting in one of its groups. */
  private serveWaiting(a: Agent): void {
    for (const g of a.groups) {
      const q = this.waiting.get(g);
      const callId = q?.shift();
      if (callId === undefined) continue;
      const call = this.calls.get(callId);
      if (call) return this.offer(call, a);
    }
  }

  /** The run's end: calls in progress end (completed when talking, else as they stand), agents log out. */
  shutdown(t: number): SimEvent[] {
    this.advanceTo(t);
    for (const call of [...this.calls.values()]) {
      if (call.state === 'talking') this.end(call, 'completed');
      else if (call.answered) {
        // Answered and not yet with an agent: hung up on.
        call.state = 'waiting';
        this.end(call, 'abandoned');
      } else this.end(call, 'no_answer');
    }
    for (const a of this.agents.values()) {
      if (a.state === 'wrapup') this.emit({ type: 'agent.wrapup.end', agentId: a.id });
      this.setAgent(a, 'free', null);
      this.emit({ type: 'agent.logout', agentId: a.id });
    }
    this.timeline.clear();
    this.stats.loggedInSecs = (this.now - this.loggedInAt) * this.agents.size;
    return this.take();
  }

  /**
   * The counters as of now, time spent in the current states included (for
   * figures over part of a run: the benchmark's second half).
   */
  snapshot(): OutboundStats {
    for (const a of this.agents.values()) this.setAgent(a, a.state, a.call);
    return { ...this.stats, loggedInSecs: (this.now - this.loggedInAt) * this.agents.size };
  }
}
