import { createServer, type Server } from 'node:http';
import type { LogLine } from './log.js';

export type ConnectionState = 'connecting' | 'connected' | 'disconnected' | 'stopped';

/**
 * What a connector reports about itself: the switch connection's state, the
 * service's (stream), events forwarded and the last error. Read through
 * `--status-port` (GET / answers JSON) and as one line on stderr on SIGUSR1;
 * both are built.
 */
export class Health {
  switchState: ConnectionState = 'connecting';
  streamState: ConnectionState = 'connecting';
  eventsForwarded = 0;
  duplicates = 0;
  rejected = 0;
  skipped = 0;
  commandsExecuted = 0;
  commandsSkipped = 0;
  lastError: { at: number; message: string } | null = null;
  private readonly started = Date.now();

  constructor(
    readonly switchName: string,
    private readonly now: () => number = Date.now,
  ) {}

  error(message: string): void {
    this.lastError = { at: this.now() / 1000, message };
  }

  report() {
    return {
      switch: this.switchName,
      switchState: this.switchState,
      streamState: this.streamState,
      eventsForwarded: this.eventsForwarded,
      duplicates: this.duplicates,
      rejected: this.rejected,
      skipped: this.skipped,
      commandsExecuted: this.commandsExecuted,
      commandsSkipped: this.commandsSkipped,
      lastError: this.lastError,
      uptimeSecs: Math.round((this.now() - this.started) / 1000),
    };
  }

  /** The SIGUSR1 line. */
  line(): string {
    const r = this.report();
    const err = r.lastError ? `${new Date(r.lastError.at * 1000).toISOString()} ${r.lastError.message}` : 'none';
    return (
      `status ${r.switch}=${r.switchState} service-stream=${r.streamState} forwarded=${r.eventsForwarded} duplicates=${r.duplicates} ` +
      `rejected=${r.rejected} skipped=${r.skipped} commands=${r.commandsExecuted} commands-skipped=${r.commandsSkipped} last-error=${err}`
    );
  }

  /** Prints `line()` on every SIGUSR1; answers the function that stops listening. */
  onSignal(log: LogLine): () => void {
    const handler = () => log(this.line());
    process.on('SIGUSR1', handler);
    return () => process.off('SIGUSR1', handler);
  }

  /** `--status-port`: GET any path → 200 with `report()` as JSON (503 while the switch is not connected). */
  async listen(port: number, host = '127.0.0.1'): Promise<Server> {
    const server = createServer((_req, res) => {
      const body = JSON.stringify(this.report());
      res.writeHead(this.switchState === 'connected' ? 200 : 503, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return server;
  }
}
