/**
 * Runs `tick` every `intervalMs` until stopped: ticks never overlap (the
 * next waits for the last to end), an error goes to `fail` and the loop goes
 * on, and `stop` ends the wait at once and resolves when the last tick has
 * ended. The inbound and the outbound simulator both tick so.
 */
export class TickLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly fail: (err: unknown) => void,
  ) {}

  start(intervalMs: number): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          await this.tick();
        } catch (err) {
          this.fail(err);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, intervalMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }
}
