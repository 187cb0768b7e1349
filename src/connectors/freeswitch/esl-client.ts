import { connect, type Socket } from 'node:net';
import { EslDecoder, parseEventPlain, type EslEvent, type EslMessage } from './esl-framing.js';

/** What `event plain …` subscribes to: mod_callcenter's events, the hold events of every channel, the campaign dialplan's AMD result (cc::amd) and reserved agent's leg (cc::agent). */
// CUSTOM last: mod_event_socket reads every word after CUSTOM as a subclass (a CHANNEL_HOLD after it would be one).
export const ESL_SUBSCRIPTION = 'CHANNEL_HOLD CHANNEL_UNHOLD CUSTOM callcenter::info cc::amd cc::agent';

export interface EslClientOptions {
  host: string;
  port: number;
  password: string;
  /** What to subscribe to after auth (default ESL_SUBSCRIPTION); null: a command-only connection. */
  subscription?: string | null;
  /** Called for every event, in the order the switch sent them. */
  onEvent: (event: EslEvent) => void;
  /** Called after each successful auth + subscription (the first connect and every reconnect). */
  onReady?: () => void;
  onDown?: (reason: string) => void;
  log?: (line: string) => void;
  /** Reconnect delays: initialMs doubling up to maxMs (PRODUCT.md §10: 1 s → 30 s). */
  backoff?: { initialMs: number; maxMs: number };
  /** How long an `api` command may wait for its answer. */
  commandTimeoutMs?: number;
}

interface Waiting {
  resolve: (m: EslMessage) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** The reconnect delay after `attempt` consecutive failures (0-based): 1 s, 2 s, 4 s … capped. */
export function backoffDelay(attempt: number, initialMs = 1000, maxMs = 30_000): number {
  return Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
}

/**
 * An ESL inbound client: connects, answers `auth/request` with `auth`,
 * subscribes to events, and reconnects with backoff whenever the socket
 * closes. Commands are answered in the order they were sent (`command/reply`
 * or `api/response`), so a FIFO of waiters pairs each answer with its command.
 */
export class EslClient {
  private socket: Socket | null = null;
  private waiting: Waiting[] = [];
  private stopped = false;
  private ready = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly initialMs: number;
  private readonly maxMs: number;

  constructor(private readonly opts: EslClientOptions) {
    this.initialMs = opts.backoff?.initialMs ?? 1000;
    this.maxMs = opts.backoff?.maxMs ?? 30_000;
  }

  get isReady(): boolean {
    return this.ready;
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.socket?.destroy();
    this.socket = null;
  }

  /** `api <command>`: resolves with the response body (a `-ERR …` body is returned as is). */
  async api(command: string): Promise<string> {
    if (!this.ready) throw new Error('event socket not connected');
    const reply = await this.send(`api ${command}`);
    return reply.body;
  }

  private log(line: string): void {
    (this.opts.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }

  private open(): void {
    const socket = connect({ host: this.opts.host, port: this.opts.port });
    this.socket = socket;
    socket.setKeepAlive(true, 10_000);
    const decoder = new EslDecoder();
    let authRequested = false;
    // Something that is not an event socket (a wrong port) may accept and say nothing: give up and retry.
    const silence = setTimeout(() => {
      if (this.socket !== socket || this.ready) return;
      this.log(`freeswitch: ${this.opts.host}:${this.opts.port} did not complete auth within ${this.opts.commandTimeoutMs ?? 10_000} ms`);
      socket.destroy();
    }, this.opts.commandTimeoutMs ?? 10_000);
    socket.once('close', () => clearTimeout(silence));
    socket.on('data', (chunk: Buffer) => {
      for (const message of decoder.push(chunk)) {
        const type = message.headers.get('Content-Type');
        if (type === 'auth/request' && !authRequested) {
          authRequested = true;
          void this.authenticate(socket);
        } else if (type === 'text/event-plain') {
          this.dispatch(message.body);
        } else if (type === 'command/reply' || type === 'api/response') {
          const w = this.waiting.shift();
          if (w) {
            clearTimeout(w.timer);
            w.resolve(message);
          }
        } else if (type === 'text/rude-rejection') {
          // The event socket's ACL (apply-inbound-acl) refused this host.
          this.log(`freeswitch: the event socket refused this host (${message.body.trim() || 'rude rejection'}): check apply-inbound-acl`);
        } else if (type === 'text/disconnect-notice') {
          this.log(`freeswitch: the switch closes the event socket (${message.body.trim() || 'disconnect notice'})`);
        }
      }
    });
    socket.on('error', (err) => this.log(`freeswitch: event socket ${this.opts.host}:${this.opts.port}: ${err.message}`));
    socket.on('close', () => this.closed(socket));
  }

  private dispatch(body: string): void {
    try {
      this.opts.onEvent(parseEventPlain(body));
    } catch (err) {
      this.log(`freeswitch: event handler failed: ${(err as Error).message}`);
    }
  }

  private async authenticate(socket: Socket): Promise<void> {
    try {
      const auth = await this.send(`auth ${this.opts.password}`);
      if (!(auth.headers.get('Reply-Text') ?? '').startsWith('+OK')) {
        // Never log the password; the reply text says what went wrong.
        this.log(`freeswitch: auth refused: ${auth.headers.get('Reply-Text') ?? 'no reply'}`);
        socket.destroy();
        return;
      }
      const subscription = this.opts.subscription === undefined ? ESL_SUBSCRIPTION : this.opts.subscription;
      if (subscription !== null) {
        const sub = await this.send(`event plain ${subscription}`);
        if (!(sub.headers.get('Reply-Text') ?? '').startsWith('+OK')) {
          this.log(`freeswitch: event subscription refused: ${sub.headers.get('Reply-Text') ?? 'no reply'}`);
          socket.destroy();
          return;
        }
      }
      this.ready = true;
      this.failures = 0;
      if (subscription !== null) this.log(`freeswitch: connected to ${this.opts.host}:${this.opts.port}`);
      this.opts.onReady?.();
    } catch (err) {
      this.log(`freeswitch: ${(err as Error).message}`);
      socket.destroy();
    }
  }

  private send(command: string): Promise<EslMessage> {
    const socket = this.socket;
    if (!socket || socket.destroyed) return Promise.reject(new Error('event socket not connected'));
    return new Promise<EslMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiting.findIndex((w) => w.timer === timer);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new Error(`no answer to "${command.split(' ')[0]}" within ${this.opts.commandTimeoutMs ?? 10_000} ms`));
        // The answers would now pair with the wrong commands: start over on a fresh socket.
        socket.destroy();
      }, this.opts.commandTimeoutMs ?? 10_000);
      this.waiting.push({ resolve, reject, timer });
      socket.write(`${command}\n\n`);
    });
  }

  private closed(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = null;
    const wasReady = this.ready;
    this.ready = false;
    for (const w of this.waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error('event socket closed'));
    }
    if (wasReady) this.opts.onDown?.('event socket closed');
    if (this.stopped) return;
    const delay = backoffDelay(this.failures++, this.initialMs, this.maxMs);
    this.log(`freeswitch: reconnecting in ${delay / 1000} s`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) this.open();
    }, delay);
  }
}
