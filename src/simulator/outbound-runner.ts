import type { Clock } from '../clock.js';
import { TickLoop } from './tick-loop.js';
import { SseParser } from '../connectors/core/sse.js';
import { isDialCommand, type OutboundModel } from './outbound.js';
import type { Transport } from './transport.js';
import type { SimEvent } from './types.js';

const BATCH = 500;

export interface OutboundProgress {
  /** Campaign dials read from the stream. */
  commands: number;
  eventsSent: number;
  accepted: number;
  duplicates: number;
  errors: number;
  lastError?: string;
}

/**
 * Drives an OutboundModel against the service: the dials the stream pushes go
 * in, each tick runs the model up to the clock and sends what it produced,
 * in order, through `events/ingest`. Ticks never overlap.
 */
export class OutboundRunner {
  readonly progress: OutboundProgress = { commands: 0, eventsSent: 0, accepted: 0, duplicates: 0, errors: 0 };
  private pending: SimEvent[] = [];
  private readonly ticks = new TickLoop(
    () => this.tick(),
    (err) => this.fail(err),
  );

  constructor(
    readonly model: OutboundModel,
    private readonly transport: Transport,
    private readonly clock: Clock,
  ) {}

  private nowSecs(): number {
    return this.clock.now() / 1000;
  }

  /** Logs the agents in (the first thing sent). */
  async begin(): Promise<void> {
    await this.send(this.model.login());
  }

  /** A `call.originate` from the stream: a campaign dial starts now (anything else is not the simulator's). */
  command(data: Record<string, unknown>): void {
    if (!isDialCommand(data)) return;
    this.progress.commands++;
    const now = this.nowSecs();
    // What the model has due before the dial goes out first, so the events stay in time order.
    this.pending.push(...this.model.advanceTo(now), ...this.model.originate(data, now));
  }

  async tick(): Promise<void> {
    const events = [...this.pending, ...this.model.advanceTo(this.nowSecs())];
    this.pending = [];
    await this.send(events);
  }

  start(intervalMs = 200): void {
    this.ticks.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.ticks.stop();
  }

  /** Ends the run: calls in progress end, agents log out. */
  async shutdown(): Promise<void> {
    await this.stop();
    const events = [...this.pending, ...this.model.shutdown(this.nowSecs())];
    this.pending = [];
    await this.send(events);
  }

  private async send(events: SimEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += BATCH) {
      const batch = events.slice(i, i + BATCH);
      try {
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
  }

  private fail(err: unknown, count = 1): void {
    this.progress.errors += count;
    this.progress.lastError = err instanceof Error ? err.message : String(err);
  }
}

/**
 * The switch's reading of `GET /api/v2/stream` (a switch token: only a switch
 * is sent `call.originate`): hands each `call.originate` to `onCommand` once
 * (the stream delivers at least once), and after a drop reconnects in 1 s with
 * `Last-Event-ID`, so dials pushed meanwhile still arrive.
 */
export class CommandReader {
  /** The id of the last group read (where a reconnect resumes; the benchmark waits for it). */
  lastEventId = 0;
  private abort: AbortController | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private readonly seen = new Set<string>();
  private connectedOnce: (() => void) | null = null;
  /** Resolves when the stream first answered 200. */
  readonly connected: Promise<void>;

  constructor(
    private readonly baseUrl: string,
    private readonly creds: { userId: string; token: string },
    private readonly onCommand: (data: Record<string, unknown>) => void,
    private readonly onError: (message: string) => void = () => {},
  ) {
    this.connected = new Promise((resolve) => (this.connectedOnce = resolve));
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const base = this.baseUrl.replace(/\/+$/, '');
    while (!this.stopped) {
      this.abort = new AbortController();
      try {
        const q = new URLSearchParams({ userId: this.creds.userId, token: this.creds.token });
        const res = await fetch(`${base}/api/v2/stream?${q}`, {
          headers: this.lastEventId ? { 'last-event-id': String(this.lastEventId) } : {},
          signal: this.abort.signal,
        });
        if (res.status !== 200 || !res.body) throw new Error(`stream answered HTTP ${res.status}`);
        this.connectedOnce?.();
        const parser = new SseParser();
        const decoder = new TextDecoder();
        const reader = res.body.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const m of parser.feed(decoder.decode(value, { stream: true }))) {
            if (m.event === 'call.originate') this.take(m.data);
            if (m.id !== null) this.lastEventId = Number(m.id);
          }
        }
        if (!this.stopped) throw new Error('stream closed by the service');
      } catch (err) {
        if (this.stopped) break;
        this.onError(`stream: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 1000).unref());
      }
    }
  }

  private take(raw: string): void {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return;
    }
    const callId = String(data.callId);
    if (this.seen.has(callId)) return;
    this.seen.add(callId);
    if (this.seen.size > 50_000) this.seen.delete(this.seen.values().next().value!);
    this.onCommand(data);
  }
}
