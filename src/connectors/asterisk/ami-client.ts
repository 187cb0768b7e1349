import { connect, type Socket } from 'node:net';
import { AmiParser, encodeAction, header, type AmiMessage } from './ami-parser.js';
import { swallowed } from '../../swallowed.js';

export interface AmiClientOptions {
  host: string;
  port: number;
  username: string;
  secret: string;
  /** A `Ping` this often (default 20 s); no answer within `timeoutMs`: the connection is dead and is dropped. */
  keepAliveMs?: number;
  /** An action without a response within this long fails (default 10 s). */
  timeoutMs?: number;
  /** Reconnect backoff: 1 s, doubling, up to 30 s (PRODUCT.md §10). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  onEvent(m: AmiMessage): void;
  /** After every successful login (the first and each reconnect): the connector reconciles here. */
  onConnected(): Promise<void>;
  onDisconnected(reason: string): void;
  log(line: string): void;
}

interface Answer {
  response: AmiMessage;
  /** The events of a list action. */
  items: AmiMessage[];
}

interface Waiting {
  resolve(a: Answer): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
  /** A list action (QueueStatus): events with this ActionID are collected until `EventList: Complete`. */
  list: AmiMessage[] | null;
  response: AmiMessage | null;
}

/** The start of every ActionID this connector sends (the originate ids too: actions.ts). */
const OWN_ID = 'cc-';

/** An AMI action that failed: `Response: Error` (its Message), a timeout, or the connection lost. */
export class AmiError extends Error {}

/**
 * An AMI client over TCP: login, ActionID correlation, keep-alive and
 * reconnect with backoff. Events without a waiting ActionID go to `onEvent`
 * in arrival order.
 */
export class AmiClient {
  private socket: Socket | null = null;
  private waiting = new Map<string, Waiting>();
  private nextId = 1;
  private stopped = false;
  private keepAlive: NodeJS.Timeout | null = null;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  connected = false;

  constructor(private readonly opts: AmiClientOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    if (this.connected) await this.action([['Action', 'Logoff']]).catch(swallowed('connector.background'));
    this.socket?.destroy();
    await this.loop;
  }

  /** Sends an action; resolves with its response (`Response: Success`), rejects on `Response: Error`. */
  async action(fields: Array<[string, string]>): Promise<AmiMessage> {
    return (await this.send(fields, false)).response;
  }

  /** Sends a list action (QueueStatus, CoreShowChannels); resolves with the events of the list. */
  async list(fields: Array<[string, string]>): Promise<AmiMessage[]> {
    return (await this.send(fields, true)).items;
  }

  private send(fields: Array<[string, string]>, list: boolean): Promise<Answer> {
    const socket = this.socket;
    if (!socket || socket.destroyed) return Promise.reject(new AmiError('not connected to the AMI'));
    // A caller-chosen ActionID (Originate: its OriginateResponse event carries it) is kept.
    const given = fields.find(([k]) => k.toLowerCase() === 'actionid')?.[1];
    const id = given ?? `${OWN_ID}${this.nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new AmiError(`${fields[0]?.[1] ?? 'action'}: no response within ${this.opts.timeoutMs ?? 10_000} ms`));
      }, this.opts.timeoutMs ?? 10_000);
      this.waiting.set(id, { resolve, reject, timer, list: list ? [] : null, response: null });
      socket.write(encodeAction(given === undefined ? [...fields, ['ActionID', id]] : fields));
    });
  }

  private async run(): Promise<void> {
    const min = this.opts.minBackoffMs ?? 1000;
    let backoff = min;
    while (!this.stopped) {
      let reason: string;
      try {
        reason = await this.session(() => (backoff = min));
      } catch (err) {
        reason = (err as Error).message;
      }
      this.connected = false;
      if (this.keepAlive) clearInterval(this.keepAlive);
      for (const [id, w] of this.waiting) {
        clearTimeout(w.timer);
        w.reject(new AmiError(`connection lost: ${reason}`));
        this.waiting.delete(id);
      }
      if (this.stopped) break;
      this.opts.onDisconnected(reason);
      this.opts.log(`ami: ${reason}; reconnecting in ${backoff / 1000} s`);
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, backoff).unref();
      });
      backoff = Math.min(backoff * 2, this.opts.maxBackoffMs ?? 30_000);
    }
  }

  /** One connection: connect, log in, read until it closes; answers why it ended. */
  private session(onLogin: () => void): Promise<string> {
    return new Promise((resolve) => {
      const parser = new AmiParser();
      const socket = connect({ host: this.opts.host, port: this.opts.port });
      this.socket = socket;
      let ended = false;
      const end = (reason: string) => {
        if (ended) return;
        ended = true;
        socket.destroy();
        resolve(reason);
      };
      socket.setNoDelay(true);
      socket.on('error', (err) => end(`AMI ${this.opts.host}:${this.opts.port}: ${err.message}`));
      socket.on('close', () => end('AMI connection closed'));
      socket.on('data', (chunk: Buffer) => {
        for (const m of parser.feed(chunk)) this.dispatch(m);
      });
      socket.on('connect', () => {
        void this.login()
          .then(async () => {
            this.connected = true;
            onLogin();
            this.startKeepAlive(end);
            await this.opts.onConnected();
          })
          .catch((err: Error) => end(err.message));
      });
    });
  }

  private async login(): Promise<void> {
    await this.action([
      ['Action', 'Login'],
      ['Username', this.opts.username],
      ['Secret', this.opts.secret],
      // Every event class the user may read; manager.conf's read= limits it.
      ['Events', 'on'],
    ]).catch((err: Error) => {
      throw new AmiError(`AMI login failed: ${err.message}`);
    });
  }

  private startKeepAlive(end: (reason: string) => void): void {
    this.keepAlive = setInterval(() => {
      this.action([['Action', 'Ping']]).catch((err: Error) => end(`keep-alive failed: ${err.message}`));
    }, this.opts.keepAliveMs ?? 20_000);
    this.keepAlive.unref();
  }

  private dispatch(m: AmiMessage): void {
    const id = header(m, 'ActionID');
    const w = id === undefined ? undefined : this.waiting.get(id);
    if (!w) {
      // An answer to an action this connector did not send (another client's ActionID: a QueueStatus's
      // QueueParams / QueueMember / QueueEntry, a Status, a Response) tells nothing new: ignored. Ours
      // (`cc-…`) that come late are kept: an OriginateResponse follows its action's Response.
      if (id !== undefined && !id.startsWith(OWN_ID)) return;
      if (header(m, 'Event') !== undefined) this.opts.onEvent(m);
      return;
    }
    const response = header(m, 'Response');
    if (response !== undefined) {
      if (/^(error|failure)$/i.test(response)) return this.finish(id!, w, new AmiError(header(m, 'Message') ?? response));
      if (w.list === null) return this.finish(id!, w, { response: m, items: [] });
      w.response = m;
      return;
    }
    // An event of a list action: collected until the list's end.
    if (w.list !== null) {
      if (/^complete$/i.test(header(m, 'EventList') ?? '') || /Complete$/.test(header(m, 'Event') ?? '')) {
        return this.finish(id!, w, { response: w.response ?? m, items: w.list });
      }
      w.list.push(m);
      return;
    }
    this.opts.onEvent(m);
  }

  private finish(id: string, w: Waiting, result: Answer | Error): void {
    clearTimeout(w.timer);
    this.waiting.delete(id);
    if (result instanceof Error) w.reject(result);
    else w.resolve(result);
  }
}
