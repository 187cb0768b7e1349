import { ModelState, type Action, type Call } from './model-state.js';
import { recordingPathFor } from './recording-path.js';
import type { RouteDecision, RouteRequest, SimEvent, TrafficConfig } from './types.js';

export type { TrafficStats } from './model-state.js';

/**
 * The traffic model: a discrete-event simulation of a call centre, pure and
 * seeded. It produces telephony events in time order; arrivals stop at a
 * routing decision (`route/decide`), which the caller feeds back with
 * `admit`. Times are Unix seconds; every duration is divided by `speed`.
 */
export class TrafficModel extends ModelState {
  constructor(cfg: TrafficConfig, opts: { seed: number; start: number; runId: string; decide?: (req: RouteRequest) => RouteDecision }) {
    super(cfg, opts);
    for (const agent of this.agents.values()) {
      if (!this.rng.chance(cfg.loggedInShare)) continue;
      const loginType = this.rng.pick(['Web', 'Web', 'SIP', 'Mobile'] as const);
      this.emit({ type: 'agent.login', agentId: agent.id, loginType });
      if (loginType === 'SIP') this.emit({ type: 'agent.sip', agentId: agent.id, sipStatus: 'online' });
      agent.state = 'available';
      this.scheduleBreak(agent.id);
    }
    cfg.routes.forEach((_, i) => this.scheduleArrival(i));
  }

  /** Runs the simulation up to `t`; returns the events produced and the arrivals that wait for a routing decision. */
  advanceTo(t: number): { events: SimEvent[]; routes: RouteRequest[] } {
    for (let next = this.timeline.pop(t); next; next = this.timeline.pop(t)) {
      this.now = next.at;
      this.apply(next.item);
    }
    this.now = Math.max(this.now, t);
    return this.drain();
  }

  /**
   * The switch's answer for an arrival: the model first runs up to `at` (default now), then a blocked
   * caller is refused and any other call is queued.
   */
  admit(requestId: number, decision: RouteDecision, at = this.now): { events: SimEvent[]; routes: RouteRequest[] } {
    const before = this.advanceTo(Math.max(at, this.now));
    const req = this.requests.get(requestId);
    if (req) {
      this.requests.delete(requestId);
      this.enqueue(req, decision);
    }
    const after = this.drain();
    return { events: [...before.events, ...after.events], routes: [...before.routes, ...after.routes] };
  }

  private enqueue(req: RouteRequest, decision: RouteDecision): void {
    if (decision.blocked) {
      this.stats.blocked++;
      return;
    }
    if (req.direction === 'outbound' && decision.dnc !== undefined && decision.dnc !== 0) {
      this.stats.dncSkipped++;
      return;
    }
    const call: Call = {
      id: `${this.runId}-c${++this.callSeq}`,
      groupId: req.groupId,
      did: req.did,
      caller: req.caller,
      campaignId: req.campaignId,
      direction: req.direction,
      retryOf: req.retryOf,
      sticky: decision.stickyAgentId,
      state: 'waiting',
      version: 0,
      offers: 0,
      tried: new Set(),
    };
    this.calls.set(call.id, call);
    this.stats.queued++;
    const { retryOf } = call;
    this.emit({
      type: 'call.queued',
      callId: call.id,
      groupId: call.groupId,
      did: call.did,
      caller: call.caller,
      campaignId: call.campaignId,
      direction: call.direction,
      ...(retryOf ? { retryOf } : {}),
    });
    this.timeline.push(this.now + this.dur(this.cfg.patienceSecs), { kind: 'abandon', callId: call.id, version: call.version });
    this.waiting.push(call);
    this.dispatch();
  }

  private scheduleArrival(route: number, retry?: { of: string; caller: string; direction: 'inbound' | 'outbound' }, delay?: number): void {
    const weights = this.cfg.routes.map((r) => r.weight ?? 1);
    const share = (weights[route] ?? 1) / weights.reduce((a, b) => a + b, 0);
    const perSec = (this.cfg.ratePerMin * share * this.cfg.speed) / 60;
    if (!retry && perSec <= 0) return;
    const at = this.now + (delay ?? this.rng.exp(1 / perSec));
    this.timeline.push(at, { kind: 'arrival', route, retry });
  }

  private pickCaller(): string {
    if (this.cfg.callers.length && !this.rng.chance(this.cfg.unknownCallerShare)) return this.rng.pick(this.cfg.callers);
    return `9${String(this.rng.int(100_000_000, 999_999_999))}`;
  }

  private apply(a: Action): void {
    if (a.kind === 'arrival') return this.arrive(a.route, a.retry);
    if (a.kind === 'wrapupEnd') {
      this.emit({ type: 'agent.wrapup.end', agentId: a.agentId });
      return this.free(a.agentId);
    }
    if (a.kind === 'breakEnd') {
      this.emit({ type: 'agent.break.end', agentId: a.agentId });
      this.scheduleBreak(a.agentId);
      return this.free(a.agentId);
    }
    if (a.kind === 'breakDue') {
      const agent = this.agents.get(a.agentId)!;
      agent.breakDue = true;
      if (agent.state === 'available') this.free(agent.id);
      return;
    }
    if (!('callId' in a)) return;
    const call = this.calls.get(a.callId);
    if (!call || call.version !== a.version) return;
    if (a.kind === 'answer') return this.answer(call);
    if (a.kind === 'ringout') return this.ringOut(call);
    if (a.kind === 'abandon') return this.abandon(call);
    if (a.kind === 'hold' || a.kind === 'unhold') {
      call.onHold = a.kind === 'hold';
      return this.emit({ type: `call.${a.kind}`, callId: call.id, agentId: call.agent });
    }
    if (a.kind === 'hangup') return this.hangUp(call);
  }

  private arrive(route: number, retry?: { of: string; caller: string; direction: 'inbound' | 'outbound' }): void {
    const r = this.cfg.routes[route]!;
    if (!retry) this.scheduleArrival(route);
    else this.stats.retries++;
    this.stats.arrivals++;
    // A retry keeps the caller and the direction of the call it retries.
    const outbound = retry ? retry.direction === 'outbound' : this.rng.chance(this.cfg.outboundShare);
    const req: RouteRequest = {
      requestId: ++this.requestSeq,
      at: this.now,
      caller: retry?.caller ?? this.pickCaller(),
      did: r.did,
      groupId: r.groupId,
      campaignId: outbound ? `dialler-${r.groupId}` : (r.campaignId ?? `camp-${r.groupId}`),
      direction: outbound ? 'outbound' : 'inbound',
      ...(retry ? { retryOf: retry.of } : {}),
    };
    if (this.decide) return this.enqueue(req, this.decide(req));
    this.requests.set(req.requestId, req);
    this.pendingRoutes.push(req);
  }

  /** Offers waiting calls to free agents: the sticky agent first, else the group's longest-idle agent not yet tried. */
  protected dispatch(): void {
    for (const call of [...this.waiting]) {
      const agentId = this.chooseAgent(call);
      if (agentId === undefined) continue;
      this.waiting = this.waiting.filter((c) => c !== call);
      const agent = this.agents.get(agentId)!;
      agent.state = 'ringing';
      call.state = 'ringing';
      call.version++;
      call.agent = agentId;
      call.offers++;
      call.tried.add(agentId);
      this.stats.offers++;
      this.emit({ type: 'call.ringing', callId: call.id, agentId, groupId: call.groupId });
      const missed = this.rng.chance(this.cfg.missShare);
      const at = this.now + (missed ? Math.max(this.cfg.missRingSecs / this.cfg.speed, 0.001) : this.dur(this.cfg.ringSecs));
      this.timeline.push(at, { kind: missed ? 'ringout' : 'answer', callId: call.id, version: call.version });
    }
  }

  private answer(call: Call): void {
    call.state = 'talking';
    call.version++;
    this.stats.answered++;
    this.agents.get(call.agent!)!.state = 'talking';
    this.emit({ type: 'call.answered', callId: call.id, agentId: call.agent });
    const ghost = this.rng.chance(this.cfg.ghostShare);
    // A ghost call talks at most 3 s whatever the speed; any other call at least 4 s, so ghost counts stay as configured.
    const talk = ghost ? this.rng.uniform(0.3, 2.5) : Math.max(4, this.dur(this.cfg.talkSecs));
    if (ghost) this.stats.ghosts++;
    if (!ghost && this.rng.chance(this.cfg.holdShare)) {
      const start = this.now + talk * this.rng.uniform(0.1, 0.5);
      const end = Math.min(start + this.dur(this.cfg.holdSecs), this.now + talk * 0.9);
      if (end > start) {
        this.stats.holds++;
        this.timeline.push(start, { kind: 'hold', callId: call.id, version: call.version });
        this.timeline.push(end, { kind: 'unhold', callId: call.id, version: call.version });
      }
    }
    this.timeline.push(this.now + talk, { kind: 'hangup', callId: call.id, version: call.version });
  }

  private ringOut(call: Call): void {
    this.stats.missedOffers++;
    const agentId = call.agent!;
    this.emit({ type: 'call.missed', callId: call.id, agentId });
    call.agent = undefined;
    call.version++;
    if (call.offers >= this.cfg.maxOffers) {
      this.end(call, 'failed');
    } else {
      call.state = 'waiting';
      this.waiting.push(call);
    }
    this.free(agentId);
  }

  private abandon(call: Call): void {
    if (call.state !== 'waiting' && call.state !== 'ringing') return;
    const ringing = call.state === 'ringing' ? call.agent : undefined;
    if (ringing !== undefined) this.emit({ type: 'call.missed', callId: call.id, agentId: ringing });
    this.waiting = this.waiting.filter((c) => c !== call);
    this.end(call, 'abandoned');
    if (ringing !== undefined) this.free(ringing);
  }

  private hangUp(call: Call): void {
    const agentId = call.agent!;
    if (this.cfg.recordings) this.emit({ type: 'call.recording', callId: call.id, agentId, path: recordingPathFor(call.id, this.now) });
    this.end(call, 'completed');
    const agent = this.agents.get(agentId)!;
    agent.state = 'wrapup';
    this.emit({ type: 'agent.wrapup.start', agentId });
    this.timeline.push(this.now + this.dur(this.cfg.wrapupSecs), { kind: 'wrapupEnd', agentId });
  }

  private end(call: Call, reason: 'completed' | 'abandoned' | 'failed'): void {
    call.state = 'ended';
    call.version++;
    this.calls.delete(call.id);
    this.stats[reason]++;
    this.emit({ type: 'call.ended', callId: call.id, reason });
    if (reason !== 'completed' && this.rng.chance(this.cfg.retryShare)) {
      const route = this.cfg.routes.findIndex((r) => r.did === call.did && r.groupId === call.groupId);
      if (route >= 0) this.scheduleArrival(route, { of: call.id, caller: call.caller, direction: call.direction }, this.dur(this.cfg.retryDelaySecs));
    }
  }
}
