import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';
import { credentialsFromQuery } from '../../auth/credentials.js';
import type { Principal } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors/catalogue.js';
import { CHANGES_CHANNEL, CHANGE_LOG_SPAN } from './events.service.js';
import type { LiveStateService } from './live-state.service.js';

/** GET /api/v2/stream: Server-Sent Events of live changes (docs/events.md §3). */

const HEARTBEAT_MS = 15_000;

/** Told of every accepted connection and its end (the app's metrics). */
export interface StreamObserver {
  opened(): void;
  closed(): void;
}

interface Subscriber {
  accountId: number;
  /** The last sequence sent (the `id` of the last group). */
  lastSent: number;
  res: ServerResponse;
  pumping: boolean;
  again: boolean;
}

function writeGroup(res: ServerResponse, seq: number, body: string): void {
  const messages = JSON.parse(body) as Array<[string, unknown]>;
  let out = '';
  messages.forEach(([event, data], i) => {
    out += `${i === messages.length - 1 ? `id: ${seq}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  });
  if (out) res.write(out);
}

/** One per app: listens once to the change channel and fans changes out to this node's subscribers. */
export class StreamHub {
  private readonly subs = new Set<Subscriber>();
  private readonly live: LiveStateService;
  private unlisten: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: AppContext,
    liveState: LiveStateService,
    private readonly heartbeatMs = HEARTBEAT_MS,
    private readonly observer: StreamObserver | null = null,
  ) {
    this.live = liveState;
  }

  private async start(): Promise<void> {
    if (this.unlisten) return;
    this.unlisten = await this.ctx.db.listen(CHANGES_CHANNEL, (payload) => this.onNotify(payload));
    this.heartbeat = setInterval(() => {
      const line = `: hb ${Math.floor(this.ctx.clock.now() / 1000)}\n\n`;
      for (const s of this.subs) s.res.write(line);
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  stop(): void {
    this.unlisten?.();
    this.unlisten = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const s of [...this.subs]) {
      this.drop(s);
      s.res.end();
    }
  }

  /** Forgets a subscriber once (its connection closed, or the hub stops). */
  private drop(s: Subscriber): void {
    if (this.subs.delete(s)) this.observer?.closed();
  }

  private onNotify(payload: string): void {
    const [account, seq] = payload.split(':').map(Number);
    for (const s of this.subs) if (s.accountId === account && s.lastSent < (seq ?? 0)) void this.pump(s);
  }

  /** Sends every group after the subscriber's last one; one pump per subscriber at a time. */
  private async pump(s: Subscriber): Promise<void> {
    if (s.pumping) {
      s.again = true;
      return;
    }
    s.pumping = true;
    try {
      do {
        s.again = false;
        for (;;) {
          const groups = await this.live.changesAfter(s.accountId, s.lastSent, 200);
          for (const g of groups) {
            writeGroup(s.res, Number(g.seq), g.body);
            s.lastSent = Number(g.seq);
          }
          if (groups.length < 200) break;
        }
      } while (s.again && this.subs.has(s));
    } catch (err) {
      this.ctx.log.warn({ err }, 'stream: reading changes failed');
    } finally {
      s.pumping = false;
    }
  }

  async subscribe(principal: Principal, reply: FastifyReply, lastEventId: number | null): Promise<void> {
    await this.start();
    const accountId = principal.accountId;
    const res = reply.raw;
    const sub: Subscriber = { accountId, lastSent: 0, res, pumping: false, again: false };
    // Listening from the start: a client that leaves while the database is read is never registered.
    let closed = false;
    res.on('close', () => {
      closed = true;
      this.drop(sub);
    });
    const current = await this.live.sequence(accountId);
    reply.hijack();
    if (closed) return;
    const headers = {
      ...reply.getHeaders(),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    };
    res.writeHead(200, headers as Record<string, string>);
    res.write(`retry: 2000\n\nevent: ready\ndata: ${JSON.stringify({ lstSync: current })}\n\n`);
    let from = current;
    if (lastEventId !== null && lastEventId < current) {
      if (current - lastEventId > CHANGE_LOG_SPAN) res.write(`event: reset\ndata: ${JSON.stringify({ lstSync: current })}\n\n`);
      else from = lastEventId;
    }
    sub.lastSent = from;
    this.subs.add(sub);
    this.observer?.opened();
    // Always read once after registering: a change committed after `current` was read but notified
    // before the subscriber was in `subs` would otherwise wait for the next notification.
    await this.pump(sub);
  }
}

function deny(reply: FastifyReply, http: number, code: number, message: string) {
  return reply
    .code(http)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify({ status: 'error', code, message }));
}

/** Registers GET /api/v2/stream on the app (called from app.ts). */
export function registerStream(
  app: FastifyInstance,
  ctx: AppContext,
  liveState: LiveStateService,
  opts: { heartbeatMs?: number; observer?: StreamObserver } = {},
): StreamHub {
  const hub = new StreamHub(ctx, liveState, opts.heartbeatMs, opts.observer ?? null);
  // preClose: the server waits for open connections, so the streams must end before it closes.
  app.addHook('preClose', async () => hub.stop());
  app.get('/api/v2/stream', { schema: { hide: true } }, async (request, reply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    let principal: Principal;
    try {
      principal = await ctx.auth.resolve(credentialsFromQuery(query, request.headers.authorization));
    } catch (err) {
      if (err instanceof AppError) return deny(reply, 401, 1014, 'Invalid token');
      throw err;
    }
    if (principal.kind === 'agent' && !principal.permissions.has('agent.live') && !principal.permissions.has('queue.view')) {
      return deny(reply, 403, 1015, 'Permission denied: missing permission agent.live or queue.view');
    }
    const raw = request.headers['last-event-id'] ?? query.lastEventId;
    const last = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : null;
    await hub.subscribe(principal, reply, last);
    return reply;
  });
  return hub;
}
