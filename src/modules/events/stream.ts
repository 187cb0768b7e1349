import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Principal } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { STREAM_SECURITY, errorAnswerSchema, httpErrorResponses } from '../../http/openapi.js';
import { defineSurface, registerSurface } from '../../http/surface.js';
import { CHANGES_CHANNEL, CHANGE_LOG_SPAN } from './events.service.js';
import type { LiveStateService } from './live-state.service.js';
import { messageFromValues } from './live.types.js';

/** GET /api/v2/stream: Server-Sent Events of live changes (docs/events.md §3). */

const HEARTBEAT_MS = 15_000;

/** Where a client asked to resume (`Last-Event-ID` or `?lastEventId=`): nothing, a sequence number, or anything else. */
export type ResumePoint = { kind: 'none' } | { kind: 'seq'; seq: number } | { kind: 'invalid' };

/**
 * Why a connection starts with `event: reset` instead of resuming: the client's state cannot be
 * brought up to date from the change log, so it must reload it (docs/events.md §3).
 */
export type ResetReason = 'invalid' | 'future' | 'expired' | 'unknown';

const RESET_MESSAGES: Record<ResetReason, string> = {
  invalid: 'Last-Event-ID is not a sequence number',
  future: 'Last-Event-ID is after the current sequence (the database was restored from a backup, or the id is from another server)',
  expired: 'Last-Event-ID is older than the change log keeps',
  unknown: 'Last-Event-ID is not an id this server sent (the database was restored from a backup, or the id is from another server)',
};

/** Told of every accepted connection, its end and every reset (the app's metrics). */
export interface StreamObserver {
  opened(): void;
  closed(): void;
  reset(reason: ResetReason): void;
}

/** The `Last-Event-ID` header, else the `lastEventId` query parameter; empty counts as absent. */
export function resumePoint(header: unknown, query: unknown): ResumePoint {
  const raw = header !== undefined && header !== '' ? header : query;
  if (raw === undefined || raw === '') return { kind: 'none' };
  return typeof raw === 'string' && /^\d+$/.test(raw) ? { kind: 'seq', seq: Number(raw) } : { kind: 'invalid' };
}

interface Subscriber {
  accountId: number;
  /** Switch credentials: the only subscribers sent commands meant for the switch alone (`call.originate`). */
  isSwitch: boolean;
  /** The last sequence sent (the `id` of the last group). */
  lastSent: number;
  res: ServerResponse;
  pumping: boolean;
  again: boolean;
}

/**
 * Messages only switch credentials receive: the customer's number of a click-to-call is the switch's
 * business, and an agent's state is what the switch then reports (`agent`), not the request.
 */
const SWITCH_ONLY = new Set(['call.originate', 'agent.state']);

function writeGroup(res: ServerResponse, seq: number, body: string, isSwitch: boolean): void {
  const messages = (JSON.parse(body) as Array<[string, unknown]>).filter(([event]) => isSwitch || !SWITCH_ONLY.has(event));
  let out = '';
  messages.forEach(([event, data], i) => {
    out += `${i === messages.length - 1 ? `id: ${seq}\n` : ''}event: ${event}\ndata: ${JSON.stringify(messageFromValues(event, data))}\n\n`;
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
            writeGroup(s.res, Number(g.seq), g.body, s.isSwitch);
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

  /**
   * Where the stream of a client that sent `resume` starts, given the account's current sequence;
   * with a reset when the change log cannot bring that client's state up to date. A valid id is one
   * this server sent (a group's `id`, or the `lstSync` of `ready` / queue/count) that the log still
   * reaches back to: the log is trimmed from its old end only, so holding the group that ends at the
   * id means holding every group after it.
   */
  private async resumeFrom(accountId: number, resume: ResumePoint, current: number): Promise<{ from: number; reset?: ResetReason }> {
    if (resume.kind === 'none') return { from: current };
    if (resume.kind === 'invalid') return { from: current, reset: 'invalid' };
    const last = resume.seq;
    if (last > current) return { from: current, reset: 'future' };
    if (last === current) return { from: current };
    if (current - last > CHANGE_LOG_SPAN) return { from: current, reset: 'expired' };
    // 0 ends no group: it is the start (lstSync of an account without events), and within the span nothing was trimmed yet.
    if (last > 0 && !(await this.live.hasChange(accountId, last))) return { from: current, reset: 'unknown' };
    return { from: last };
  }

  async subscribe(principal: Principal, reply: FastifyReply, resume: ResumePoint): Promise<void> {
    await this.start();
    const accountId = principal.accountId;
    const res = reply.raw;
    const sub: Subscriber = { accountId, isSwitch: principal.kind === 'switch', lastSent: 0, res, pumping: false, again: false };
    // Listening from the start: a client that leaves while the database is read is never registered.
    let closed = false;
    res.on('close', () => {
      closed = true;
      this.drop(sub);
    });
    const current = await this.live.sequence(accountId);
    const start = await this.resumeFrom(accountId, resume, current);
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
    let out = `retry: 2000\n\nevent: ready\ndata: ${JSON.stringify({ lstSync: current })}\n\n`;
    if (start.reset) {
      // With the current id: a client that reconnects after reloading resumes from here, not from its bad id.
      out += `id: ${current}\nevent: reset\ndata: ${JSON.stringify({ lstSync: current, reason: start.reset, message: RESET_MESSAGES[start.reset] })}\n\n`;
      this.observer?.reset(start.reset);
    }
    res.write(out);
    sub.lastSent = start.from;
    this.subs.add(sub);
    this.observer?.opened();
    // Always read once after registering: a change committed after `current` was read but notified
    // before the subscriber was in `subs` would otherwise wait for the next notification.
    await this.pump(sub);
  }
}

const STREAM_EXAMPLE = [
  'retry: 2000',
  '',
  'event: ready',
  'data: {"lstSync":1239}',
  '',
  'event: agent',
  'data: {"agentId":12,"state":"ringing","loggedIn":true,"loginType":"Web","sipStatus":"online","breakReason":null,"callId":null,"ringingCallId":"c-981","since":1763812345.2,"seq":1240}',
  '',
  'id: 1240',
  'event: call',
  'data: {"callId":"c-981","state":"ringing","groupId":55,"did":"18005550100","caller":"919876543210","campaignId":null,"direction":"inbound","agentId":null,"ringingAgentId":12,"onHold":false,"queuedAt":1763812340.0,"answeredAt":null,"seq":1240}',
  '',
  'id: 1241',
  'event: call.takeover',
  'data: {"callId":"c-990","from":9,"to":3,"caller":"919812345678","ts":1763812350,"seq":1241}',
  '',
  ': hb 1763812365',
  '',
  '',
].join('\n');

/** The stream's OpenAPI description (docs/events.md §3). */
const STREAM_SCHEMA = {
  tags: ['events'],
  operationId: 'events_stream',
  summary: 'Live changes of the account as Server-Sent Events (agents, calls, takeover commands for the switch)',
  description: [
    'A `text/event-stream` that stays open. Messages (`event:` names): `ready` first, with the current `lstSync`; `agent` and `call`, ' +
      "each carrying the entity's whole new state (a snapshot, so applying one twice is harmless; a call's `state` is queued, ringing, " +
      'connected or ended); `call.takeover`, a command for the switch (bridge `callId` to agent `to`); `call.originate`, a click-to-call for the switch ' +
      '(sent to switch credentials only: ring agent `agentId`, then dial `customer`; docs/asterisk.md); `agent.state`, Agent/setState for the switch ' +
      '(switch credentials only: make agent `agentId` ready, on break with `reason`, or logged out in the queues of `groupIds`); `reset` (below). `data` is one JSON object.',
    'Changes come in groups (one per ingest batch or takeover); the last message of a group carries `id:`, the account sequence after it. ' +
      'Reconnect with the `Last-Event-ID` header (or `?lastEventId=`) to get every group after it (at least once). An id older than the ' +
      'last 100,000 sequence numbers gets `event: reset`: reload `Agent/live` and `queue/list`, then carry on. A comment line ' +
      '`: hb <unix seconds>` is sent every 15 s.',
    'Credentials: `Authorization: Bearer` with a session id, or `?ssid=`, or `?userId=` and `?token=`. Clients and switch tokens may read ' +
      "it; an agent needs the permission `agent.live` or `queue.view`. Only the caller's account is streamed. See docs/events.md §3.",
  ].join('\n\n'),
  security: STREAM_SECURITY,
  querystring: {
    type: 'object',
    properties: {
      ssid: { type: 'string' },
      userId: { type: 'string' },
      token: { type: 'string' },
      lastEventId: { type: 'string', pattern: '^[0-9]{1,15}$', description: 'Resume after this sequence number (as the `Last-Event-ID` header)' },
    },
  },
  headers: {
    type: 'object',
    properties: {
      'last-event-id': { type: 'string', pattern: '^[0-9]{1,15}$', description: 'Resume after this sequence number (sent by EventSource on reconnect)' },
    },
  },
  response: {
    200: {
      description: 'The event stream; it stays open until the client leaves or the server shuts down.',
      content: {
        'text/event-stream': {
          schema: { type: 'string', description: 'Server-Sent Events: `event:`, `data:` (one JSON object) and, last in a group, `id:` lines' },
          example: STREAM_EXAMPLE,
        },
      },
    },
    401: {
      description: 'No valid credentials; code 1014.',
      content: {
        'application/json': {
          schema: errorAnswerSchema([1014], 'general', 'HTTP 401'),
          example: { status: 'error', code: 1014, message: 'Invalid token' },
        },
      },
    },
    403: {
      description: 'An agent without the permission agent.live or queue.view; code 1015.',
      content: {
        'application/json': {
          schema: errorAnswerSchema([1015], 'general', 'HTTP 403', { 1015: 'an agent needs the permission agent.live or queue.view' }),
          example: { status: 'error', code: 1015, message: 'Permission denied: missing permission agent.live or queue.view' },
        },
      },
    },
    ...httpErrorResponses([500, 503]),
  },
};

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
  registerSurface(
    app,
    defineSurface({
      method: 'GET',
      url: '/api/v2/stream',
      module: 'events',
      name: 'stream',
      credentials: 'query',
      principals: ['client', 'agent', 'switch'],
      refuse: (p) =>
        p.kind === 'agent' && !p.permissions.has('agent.live') && !p.permissions.has('queue.view') ? 'missing permission agent.live or queue.view' : null,
      httpRefusals: true,
      schema: STREAM_SCHEMA,
      writes: false,
      input: (request: FastifyRequest) => resumePoint(request.headers['last-event-id'], (request.query as Record<string, unknown> | undefined)?.lastEventId),
      async handler({ principal, body, reply }) {
        await hub.subscribe(principal, reply, body);
        return reply;
      },
    }),
    { admission: ctx.admission },
  );
  return hub;
}
