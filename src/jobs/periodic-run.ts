import { swallowed } from '../swallowed.js';

/**
 * A job every node starts and runs every so often (the retention purge,
 * the stored hour grids): one run at a time in this process, a failed run
 * logged and the next one still scheduled, and a stop that waits for the
 * run under way. Which node runs is the job's own business (a lock in the
 * database).
 */
export class PeriodicRun<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T> | null = null;

  constructor(
    private readonly run: () => Promise<T>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Runs every `intervalMs` (the first run `firstMs` after the start) until stop(); 0 never runs. */
  start(intervalMs: number, firstMs = intervalMs): void {
    if (this.timer || intervalMs <= 0) return;
    const tick = (delay: number) => {
      this.timer = setTimeout(() => {
        void this.runOnce()
          .catch(this.onError)
          .finally(() => this.timer && tick(intervalMs));
      }, delay);
      // A pending run does not keep the process alive.
      this.timer.unref();
    };
    tick(firstMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(swallowed('job.stop'));
  }

  /** One run now (joins a run of this process already under way). */
  runOnce(): Promise<T> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }
}
