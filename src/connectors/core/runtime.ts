import type { Server } from 'node:http';
import { SwitchApi, type ApiConnection, type SwitchEvent, type SwitchState } from './api-client.js';
import { EventBatcher } from './batcher.js';
import { CommandStream, type CommandHandlers } from './command-stream.js';
import { Health } from './health.js';
import { stderrLine, type LogLine } from './log.js';
import { SwitchMapper } from './mapping.js';
import { OptionError, apiConnection, parseIdMap } from './options.js';

/** The options every connector takes (PRODUCT.md §10), parsed from the command line and environment. */
export interface ConnectorOptions {
  conn: ApiConnection;
  queueMap: Map<string, number>;
  agentMap: Map<string, number>;
  /** `--status-port`: the health endpoint (none when absent). */
  statusPort: number | null;
}

export function connectorOptions(options: Record<string, string>, env: NodeJS.ProcessEnv = process.env): ConnectorOptions {
  let statusPort: number | null = null;
  if (options['status-port'] !== undefined) {
    statusPort = Number(options['status-port']);
    if (!Number.isInteger(statusPort) || statusPort < 1 || statusPort > 65535) throw new OptionError('--status-port must be a TCP port');
  }
  return {
    conn: apiConnection(options, env),
    queueMap: parseIdMap('queue-map', options['queue-map']),
    agentMap: parseIdMap('agent-map', options['agent-map']),
    statusPort,
  };
}

export interface RuntimeOptions extends ConnectorOptions {
  /** `asterisk`, `freeswitch`, `queue-log`: names the switch in the health report. */
  switchName: string;
  log?: LogLine;
  /** switch/config is read again this often (default 60 s) and whenever a name is unknown. */
  configRefreshMs?: number;
  /** An unknown name reads the config again at most this often (default 5 s). */
  unknownRefreshMs?: number;
  batchDelayMs?: number;
  /** Stream reconnect backoff start (default 1 s; tests shorten it). */
  streamBackoffMs?: number;
  now?: () => number;
}

/**
 * Everything a connector shares, whatever the switch: the API client with the
 * switch token, the name mapping kept fresh from switch/config, the event
 * batcher, the command stream and the health report. A switch adapter feeds
 * `forward()` and implements the command handlers.
 */
export class ConnectorRuntime {
  readonly api: SwitchApi;
  readonly mapper: SwitchMapper;
  readonly health: Health;
  readonly batcher: EventBatcher;
  readonly log: LogLine;
  stream: CommandStream | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private lastRefresh = 0;
  private refreshing: Promise<void> | null = null;
  private statusServer: Server | null = null;
  private unsignal: (() => void) | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: RuntimeOptions) {
    this.log = opts.log ?? stderrLine;
    this.now = opts.now ?? Date.now;
    this.api = new SwitchApi(opts.conn);
    this.health = new Health(opts.switchName, this.now);
    this.mapper = new SwitchMapper({ queueMap: opts.queueMap, agentMap: opts.agentMap, log: this.log });
    this.batcher = new EventBatcher({ send: (events) => this.api.ingest(events), health: this.health, log: this.log, delayMs: opts.batchDelayMs });
  }

  /**
   * Reads switch/config (waiting, with backoff, while the service is unreachable
   * or refuses the token), then starts the periodic refresh, the health report
   * and, given handlers, the command stream.
   */
  async start(handlers: CommandHandlers | null): Promise<void> {
    let backoff = 1000;
    for (;;) {
      try {
        await this.refresh();
        break;
      } catch (err) {
        this.health.error(`switch/config: ${(err as Error).message}`);
        this.log(`switch/config failed: ${(err as Error).message}; retrying in ${backoff / 1000} s`);
        await new Promise((r) => setTimeout(r, backoff).unref());
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
    this.refreshTimer = setInterval(
      () => void this.refresh().catch((err: Error) => this.health.error(`switch/config: ${err.message}`)),
      this.opts.configRefreshMs ?? 60_000,
    );
    this.refreshTimer.unref();
    this.unsignal = this.health.onSignal(this.log);
    if (this.opts.statusPort !== null) this.statusServer = await this.health.listen(this.opts.statusPort);
    if (handlers) {
      this.stream = new CommandStream({ api: this.api, handlers, health: this.health, log: this.log, now: this.now, minBackoffMs: this.opts.streamBackoffMs });
      this.stream.start();
    }
  }

  /** Reads switch/config now (one read at a time). */
  refresh(): Promise<void> {
    this.refreshing ??= this.api
      .config()
      .then((config) => {
        this.mapper.load(config);
        this.lastRefresh = this.now();
      })
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  /** Before a name the mapper does not know is logged and skipped: read the config again (at most every 5 s). */
  private async refreshForUnknown(): Promise<void> {
    if (this.now() - this.lastRefresh < (this.opts.unknownRefreshMs ?? 5000)) return;
    await this.refresh().catch((err: Error) => this.health.error(`switch/config: ${err.message}`));
  }

  /** The group of a switch queue; unknown: the config is read again first, then it is logged once and undefined. */
  async group(queue: string): Promise<number | undefined> {
    if (!this.mapper.knowsQueue(queue)) await this.refreshForUnknown();
    const id = this.mapper.group(queue);
    if (id === undefined) this.health.skipped++;
    return id;
  }

  /** The agent of a queue member or channel (by any of its names: SwitchMapper.agent); unknown as for group(). */
  async agent(...member: Array<string | undefined>): Promise<number | undefined> {
    if (!this.mapper.knowsMember(...member)) await this.refreshForUnknown();
    const id = this.mapper.agent(...member);
    if (id === undefined) this.health.skipped++;
    return id;
  }

  forward(...events: SwitchEvent[]): void {
    this.batcher.push(...events);
  }

  /** The service's live state (switch/state), sent events flushed first so it includes them. */
  async serviceState(): Promise<SwitchState> {
    await this.batcher.flush();
    return this.api.state();
  }

  async stop(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.unsignal?.();
    await this.stream?.stop();
    await Promise.race([this.batcher.flush(), new Promise((r) => setTimeout(r, 5000).unref())]);
    this.batcher.stop();
    await new Promise<void>((resolve) => (this.statusServer ? this.statusServer.close(() => resolve()) : resolve()));
    this.health.switchState = 'stopped';
  }
}
