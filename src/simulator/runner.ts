import type { Clock } from '../clock.js';
import { TickLoop } from './tick-loop.js';
import type { TrafficModel } from './model.js';
import type { RecordingWriter } from './recordings.js';
import type { Transport } from './transport.js';
import type { RouteDecision, RouteRequest, SimEvent } from './types.js';

export interface RunnerProgress {
  /** Calls queued and not yet ended. */
  callsInProgress: number;
  eventsSent: number;
  accepted: number;
  duplicates: number;
  /** Events the service rejected, failed requests and failed routing decisions. */
  errors: number;
  decisions: number;
  blocked: number;
  /** Events per second over the last few seconds. */
  eventsPerSec: number;
  lastError?: string;
}

const BATCH = 500;
const DECIDE_CONCURRENCY = 16;
/** Longest model step of one tick's catch-up, in seconds. */
const STEP = 1;

/**
 * Drives a TrafficModel in real time against the service: each tick runs the
 * model up to the clock, asks `route/decide` for every new arrival, admits
 * them with the answer and sends the events produced, in order, through
 * `events/ingest` in batches. Ticks never overlap.
 */
export class SimulationRunner {
  readonly progress: RunnerProgress = { callsInProgress: 0, eventsSent: 0, accepted: 0, duplicates: 0, errors: 0, decisions: 0, blocked: 0, eventsPerSec: 0 };
  private readonly ticks = new TickLoop(
    () => this.tick(),
    (err) => this.fail(err),
  );
  private readonly rateWindow: { at: number; sent: number }[] = [];

  constructor(
    readonly model: TrafficModel,
    private readonly transport: Transport,
    private readonly clock: Clock,
    /** Writes the files of `call.recording` events before they are reported (none: recordings are only reported). */
    private readonly recorder?: RecordingWriter,
  ) {}

  private nowSecs(): number {
    return this.clock.now() / 1000;
  }

  /** One step: the model up to now, routing decisions for new arrivals, events to the service. */
  async tick(): Promise<void> {
    const target = this.nowSecs();
    // Behind the clock (a warm-up, or a slow service): catch up in steps of at most STEP seconds, so
    // each arrival is decided and admitted close to its own time.
    for (let t = Math.min(this.model.time + STEP, target); ; t = Math.min(t + STEP, target)) {
      await this.step(t);
      if (t >= target) break;
    }
    this.progress.callsInProgress = this.model.callsInProgress;
  }

  private async step(t: number): Promise<void> {
    let { events, routes } = this.model.advanceTo(t);
    await this.send(events);
    // Admitting may start further arrivals only through the model's own timeline, but keep looping to be safe.
    while (routes.length) {
      const decisions = await this.decideAll(routes);
      events = [];
      const next: RouteRequest[] = [];
      for (const [req, decision] of decisions) {
        const r = this.model.admit(req.requestId, decision, t);
        events.push(...r.events);
        next.push(...r.routes);
      }
      await this.send(events);
      routes = next;
    }
  }

  /** Ends the run: live calls end, agents log out (so the service keeps no stale live state). */
  async shutdown(): Promise<void> {
    await this.stop();
    await this.send(this.model.shutdown(this.nowSecs()));
    this.progress.callsInProgress = 0;
  }

  /** Ticks every `intervalMs` until stopped. */
  start(intervalMs = 250): void {
    this.ticks.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.ticks.stop();
  }

  private async decideAll(routes: RouteRequest[]): Promise<[RouteRequest, RouteDecision][]> {
    const out: [RouteRequest, RouteDecision][] = [];
    for (let i = 0; i < routes.length; i += DECIDE_CONCURRENCY) {
      const chunk = routes.slice(i, i + DECIDE_CONCURRENCY);
      out.push(...(await Promise.all(chunk.map(async (req) => [req, await this.decide(req)] as [RouteRequest, RouteDecision]))));
    }
    return out;
  }

  private async decide(req: RouteRequest): Promise<RouteDecision> {
    this.progress.decisions++;
    try {
      const res = await this.transport.post('route/decide', { caller: req.caller, did: req.did, groupId: req.groupId });
      if (res.status !== 'success') throw new Error(`route/decide ${res.code}: ${res.message ?? ''}`);
      const data = res.data as { blocked: boolean; stickyAgentId?: number; dnc: number };
      if (data.blocked) this.progress.blocked++;
      return { blocked: data.blocked, dnc: data.dnc, ...(data.stickyAgentId !== undefined ? { stickyAgentId: data.stickyAgentId } : {}) };
    } catch (err) {
      // Without an answer the switch routes normally: the call is not lost.
      this.fail(err);
      return { blocked: false };
    }
  }

  private async send(events: SimEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += BATCH) {
      const batch = events.slice(i, i + BATCH);
      try {
        if (this.recorder) for (const e of batch) if (e.type === 'call.recording') await this.recorder.write(e.path!, e.agentId);
        const res = await this.transport.post('events/ingest', { events: batch });
        if (res.status !== 'success') throw new Error(`events/ingest ${res.code}: ${res.message ?? ''}`);
        const data = res.data as { accepted: number; duplicates: number; errors: { index: number; code: number; message: string }[] };
        this.progress.accepted += data.accepted;
        this.progress.duplicates += data.duplicates;
        this.progress.errors += data.errors.length;
        if (data.errors.length) this.progress.lastError = `${batch[data.errors[0]!.index]?.type}: ${data.errors[0]!.code} ${data.errors[0]!.message}`;
      } catch (err) {
        this.fail(err, batch.length);
      }
      this.progress.eventsSent += batch.length;
    }
    this.measureRate();
  }

  private measureRate(): void {
    const now = this.clock.now();
    this.rateWindow.push({ at: now, sent: this.progress.eventsSent });
    while (this.rateWindow.length > 2 && now - this.rateWindow[0]!.at > 5000) this.rateWindow.shift();
    const first = this.rateWindow[0]!;
    const secs = (now - first.at) / 1000;
    this.progress.eventsPerSec = secs > 0 ? Math.round((this.progress.eventsSent - first.sent) / secs) : 0;
  }

  private fail(err: unknown, count = 1): void {
    this.progress.errors += count;
    this.progress.lastError = err instanceof Error ? err.message : String(err);
  }
}

/**
 * Best effort before a run: close what an earlier simulator run (killed without shutdown) left
 * open: its live calls (ids starting with `callPrefix`, `sim-` the simulator's own, read through
 * queue/list when the credentials may) and the agents' breaks, wrap-ups and sessions. The service rejects what does not apply; those
 * answers are ignored.
 */
export async function resetLiveState(transport: Transport, agentIds: number[], runId: string, ts: number, callPrefix = 'sim-'): Promise<void> {
  let n = 0;
  const events: SimEvent[] = [];
  for (const call of await staleCalls(transport, callPrefix)) {
    events.push({
      eventId: `${runId}-reset-${++n}`,
      type: 'call.ended',
      ts,
      callId: call.callId,
      reason: call.state === 'connected' ? 'completed' : 'abandoned',
    });
  }
  for (const agentId of agentIds) {
    for (const type of ['agent.break.end', 'agent.wrapup.end', 'agent.logout'] as const) events.push({ eventId: `${runId}-reset-${++n}`, type, ts, agentId });
  }
  for (let i = 0; i < events.length; i += BATCH) await transport.post('events/ingest', { events: events.slice(i, i + BATCH) });
}

async function staleCalls(transport: Transport, prefix: string): Promise<{ callId: string; state: string }[]> {
  const found: { callId: string; state: string }[] = [];
  for (let page = 0; page < 100; page++) {
    const res = await transport.post('queue/list', { Modules: ['calls'], size: 500, page });
    const calls = res.status === 'success' ? ((res.data as { calls?: { callId: string; state: string }[] }).calls ?? []) : [];
    found.push(...calls.filter((c) => c.callId.startsWith(prefix)));
    if (calls.length < 500) break;
  }
  return found;
}
