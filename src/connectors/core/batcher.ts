import { SwitchApiError, type IngestAnswer, type SwitchEvent } from './api-client.js';
import type { Health } from './health.js';
import type { LogLine } from './log.js';

export interface BatcherOptions {
  send(events: SwitchEvent[]): Promise<IngestAnswer>;
  health: Health;
  log: LogLine;
  /** Wait this long for more events before sending (default 100 ms). */
  delayMs?: number;
  /** events/ingest takes at most 1000 per request. */
  maxBatch?: number;
  /** While the service is down events wait in memory, up to this many; beyond it the oldest are dropped (logged). */
  maxBuffered?: number;
}

/**
 * Forwards events to events/ingest in order, in batches. A batch the service
 * did not take (unreachable, 5xx, 1010) is sent again, with backoff 1 s → 30 s,
 * before anything after it: events of one call stay in order. Event ids are
 * derived from the switch, so a batch sent twice is counted as duplicates.
 * Rejected events (the service's `errors`) are logged with their code and
 * not sent again.
 */
export class EventBatcher {
  private queue: SwitchEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly delayMs: number;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;

  constructor(private readonly opts: BatcherOptions) {
    this.delayMs = opts.delayMs ?? 100;
    this.maxBatch = opts.maxBatch ?? 1000;
    this.maxBuffered = opts.maxBuffered ?? 100_000;
  }

  get pending(): number {
    return this.queue.length;
  }

  push(...events: SwitchEvent[]): void {
    if (this.stopped || events.length === 0) return;
    this.queue.push(...events);
    if (this.queue.length > this.maxBuffered) {
      const dropped = this.queue.splice(0, this.queue.length - this.maxBuffered);
      this.opts.log(`buffer full: dropped the ${dropped.length} oldest events (the service has been unreachable too long)`);
      this.opts.health.error(`dropped ${dropped.length} events: buffer full`);
    }
    if (this.queue.length >= this.maxBatch) this.kick();
    else this.timer ??= setTimeout(() => this.kick(), this.delayMs);
  }

  /** Sends everything queued now; resolves when the queue is empty (or the batcher stops). */
  async flush(): Promise<void> {
    while (!this.stopped && (this.queue.length > 0 || this.running)) {
      this.kick();
      await this.running;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  private async drain(): Promise<void> {
    let backoff = 1000;
    while (this.queue.length > 0 && !this.stopped) {
      const batch = this.queue.slice(0, this.maxBatch);
      try {
        const answer = await this.opts.send(batch);
        this.queue.splice(0, batch.length);
        this.account(batch, answer);
        backoff = 1000;
      } catch (err) {
        const e = err as Error;
        this.opts.health.error(e.message);
        if (err instanceof SwitchApiError && err.code >= 1000 && err.code !== 1010) {
          // The service refused the whole request (bad token 1014, 1015…): retrying cannot help until it is fixed, but the events are kept.
          this.opts.log(`events/ingest refused the batch: ${e.message}; retrying in ${backoff / 1000} s`);
        } else {
          this.opts.log(`events/ingest failed: ${e.message}; retrying in ${backoff / 1000} s`);
        }
        await new Promise((r) => setTimeout(r, backoff).unref());
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }

  private account(batch: SwitchEvent[], answer: IngestAnswer): void {
    const h = this.opts.health;
    h.eventsForwarded += answer.accepted;
    h.duplicates += answer.duplicates;
    h.rejected += answer.errors.length;
    for (const e of answer.errors) {
      const ev = batch[e.index];
      this.opts.log(`rejected ${ev?.type ?? '?'} ${ev?.eventId ?? '?'}: ${e.code} ${e.message}`);
    }
    if (answer.errors.length > 0) h.error(`${answer.errors[0]!.code} ${answer.errors[0]!.message}`);
  }
}
