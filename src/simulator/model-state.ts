import { Rng } from './rng.js';
import { BREAK_REASONS, type RouteDecision, type RouteRequest, type SimEvent, type TrafficConfig } from './types.js';
import { Timeline } from './timeline.js';

export type AgentState = 'out' | 'available' | 'ringing' | 'talking' | 'wrapup' | 'break';
export interface Agent {
  id: number;
  state: AgentState;
  freeSince: number;
  breakDue: boolean;
}
export type CallState = 'waiting' | 'ringing' | 'talking' | 'ended';
export interface Call {
  id: string;
  groupId: number;
  did: string;
  caller: string;
  campaignId: string;
  direction: 'inbound' | 'outbound';
  onHold?: boolean;
  retryOf?: string;
  sticky?: number;
  state: CallState;
  /** Bumped on every state change: scheduled actions of an older state are ignored. */
  version: number;
  agent?: number;
  offers: number;
  tried: Set<number>;
}
export type Action =
  | { kind: 'arrival'; route: number; retry?: { of: string; caller: string; direction: 'inbound' | 'outbound' } }
  | { kind: 'answer' | 'ringout' | 'abandon' | 'hold' | 'unhold' | 'hangup'; callId: string; version: number }
  | { kind: 'wrapupEnd' | 'breakEnd'; agentId: number }
  | { kind: 'breakDue'; agentId: number };

export interface TrafficStats {
  arrivals: number;
  blocked: number;
  /** Outbound calls not placed because the number is on the DNC list. */
  dncSkipped: number;
  queued: number;
  retries: number;
  offers: number;
  missedOffers: number;
  answered: number;
  ghosts: number;
  holds: number;
  completed: number;
  abandoned: number;
  failed: number;
  events: number;
}

/**
 * The state of the simulated call centre (agents, live calls, the timeline of
 * what happens next) and the agent side of it; TrafficModel adds the calls' flow.
 */
export abstract class ModelState {
  readonly stats: TrafficStats = {
    arrivals: 0,
    blocked: 0,
    dncSkipped: 0,
    queued: 0,
    retries: 0,
    offers: 0,
    missedOffers: 0,
    answered: 0,
    ghosts: 0,
    holds: 0,
    completed: 0,
    abandoned: 0,
    failed: 0,
    events: 0,
  };
  protected readonly rng: Rng;
  protected readonly timeline = new Timeline<Action>();
  protected readonly agents = new Map<number, Agent>();
  protected readonly groupAgents = new Map<number, number[]>();
  protected readonly calls = new Map<string, Call>();
  /** Waiting calls in arrival order. */
  protected waiting: Call[] = [];
  protected readonly requests = new Map<number, RouteRequest>();
  protected out: SimEvent[] = [];
  protected pendingRoutes: RouteRequest[] = [];
  protected seq = 0;
  protected callSeq = 0;
  protected requestSeq = 0;
  protected now: number;
  protected readonly runId: string;
  /** Synchronous routing (tests, pure runs): arrivals are admitted at once instead of waiting for `admit`. */
  protected readonly decide?: (req: RouteRequest) => RouteDecision;

  constructor(
    protected readonly cfg: TrafficConfig,
    opts: { seed: number; start: number; runId: string; decide?: (req: RouteRequest) => RouteDecision },
  ) {
    this.rng = new Rng(opts.seed);
    this.now = opts.start;
    this.runId = opts.runId;
    this.decide = opts.decide;
    for (const g of cfg.groups) {
      this.groupAgents.set(g.groupId, [...g.agentIds]);
      for (const id of g.agentIds) if (!this.agents.has(id)) this.agents.set(id, { id, state: 'out', freeSince: opts.start, breakDue: false });
    }
  }

  /** The model's current time (Unix seconds). */
  get time(): number {
    return this.now;
  }

  /** Offers waiting calls to free agents. */
  protected abstract dispatch(): void;

  /** Runs the simulation up to `t`. */
  abstract advanceTo(t: number): { events: SimEvent[]; routes: RouteRequest[] };

  /** Calls queued and not yet ended. */
  get callsInProgress(): number {
    return this.calls.size;
  }

  /**
   * Ends the simulation cleanly at `t`: live calls end (completed when connected, else abandoned),
   * breaks and wrap-ups close and every logged-in agent logs out, so no stale live state stays behind.
   */
  shutdown(t: number): SimEvent[] {
    const before = this.advanceTo(t).events;
    for (const call of [...this.calls.values()]) {
      if (call.state === 'ringing') this.emit({ type: 'call.missed', callId: call.id, agentId: call.agent });
      if (call.onHold) this.emit({ type: 'call.unhold', callId: call.id, agentId: call.agent });
      this.emit({ type: 'call.ended', callId: call.id, reason: call.state === 'talking' ? 'completed' : 'abandoned' });
      this.calls.delete(call.id);
    }
    this.waiting = [];
    for (const agent of this.agents.values()) {
      if (agent.state === 'out') continue;
      if (agent.state === 'break') this.emit({ type: 'agent.break.end', agentId: agent.id });
      if (agent.state === 'wrapup') this.emit({ type: 'agent.wrapup.end', agentId: agent.id });
      this.emit({ type: 'agent.logout', agentId: agent.id });
      agent.state = 'out';
    }
    this.timeline.clear();
    return [...before, ...this.drain().events];
  }

  /** Agent ids the model works with (to reset their live state before a run). */
  agentIds(): number[] {
    return [...this.agents.keys()];
  }

  protected drain() {
    const result = { events: this.out, routes: this.pendingRoutes };
    this.out = [];
    this.pendingRoutes = [];
    return result;
  }

  protected dur(mean: number): number {
    return this.rng.exp(mean) / this.cfg.speed;
  }

  protected emit(e: Omit<SimEvent, 'eventId' | 'ts'>): void {
    this.out.push({ eventId: `${this.runId}-${++this.seq}`, ts: Math.round(this.now * 1000) / 1000, ...e } as SimEvent);
    this.stats.events++;
  }

  protected scheduleBreak(agentId: number): void {
    if (this.cfg.breaksPerHour <= 0) return;
    this.timeline.push(this.now + this.dur(3600 / this.cfg.breaksPerHour), { kind: 'breakDue', agentId });
  }

  protected chooseAgent(call: Call): number | undefined {
    if (call.sticky !== undefined && !call.tried.has(call.sticky) && this.agents.get(call.sticky)?.state === 'available') return call.sticky;
    const members = this.groupAgents.get(call.groupId) ?? [];
    let best: Agent | undefined;
    let anyUntried = false;
    for (const id of members) {
      if (!call.tried.has(id)) anyUntried = true;
      const a = this.agents.get(id)!;
      if (a.state !== 'available' || call.tried.has(id)) continue;
      if (!best || a.freeSince < best.freeSince) best = a;
    }
    // Every agent of the group tried: offer them again (the cap is maxOffers).
    if (!anyUntried && members.length) call.tried.clear();
    return best?.id;
  }

  /** An agent is done with what it did: a due break starts now, else it takes the next waiting call. */
  protected free(agentId: number): void {
    const agent = this.agents.get(agentId)!;
    if (agent.breakDue) {
      agent.breakDue = false;
      agent.state = 'break';
      this.emit({ type: 'agent.break.start', agentId, reason: this.rng.pick(BREAK_REASONS) });
      this.timeline.push(this.now + this.dur(this.cfg.breakSecs), { kind: 'breakEnd', agentId });
      return;
    }
    agent.state = 'available';
    agent.freeSince = this.now;
    this.dispatch();
  }
}
