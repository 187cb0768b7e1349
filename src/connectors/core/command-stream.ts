import type { SwitchApi } from './api-client.js';
import type { Health } from './health.js';
import type { LogLine } from './log.js';
import { SseParser, type SseMessage } from './sse.js';

/** `call.takeover` as the stream pushes it: bridge `callId` to agent `to`. */
export interface TakeoverCommand {
  callId: string;
  from: number | null;
  to: number;
  caller: string | null;
  ts: number;
  seq: number;
}

/** `call.originate` as the stream pushes it: ring the agent, then dial the customer. */
export interface OriginateCommand {
  callId: string;
  agentId: number;
  agentNumber: string;
  customer: string;
  did: string | null;
  campaignId: string | null;
  ts: number;
  seq: number;
  /** A campaign dial (PRODUCT.md §13) also carries these; a click-to-call does not (see isCampaignDial). */
  groupId?: number;
  ringSecs?: number;
  amd?: boolean;
  machineAction?: 'hangup' | 'agent';
  connectSecs?: number;
  retryOf?: string | null;
}

/** A campaign's `call.originate` (the dialer's): the customer is dialled first; a click-to-call (agent first) has no ringSecs / groupId. */
export function isCampaignDial(cmd: OriginateCommand): cmd is OriginateCommand & { campaignId: string; groupId: number; ringSecs: number } {
  return !!cmd.campaignId && typeof cmd.groupId === 'number' && typeof cmd.ringSecs === 'number';
}

/**
 * `agent.state` as the stream pushes it (Agent/setState): make the agent ready in its queues (the
 * switch queues of `groupIds`), paused in them with `reason`, or out of them.
 */
export interface AgentStateCommand {
  agentId: number;
  state: 'ready' | 'break' | 'logged_out';
  reason: string | null;
  groupIds: number[];
  ts: number;
  seq: number;
}

export interface CommandHandlers {
  takeover(cmd: TakeoverCommand): Promise<void>;
  originate(cmd: OriginateCommand): Promise<void>;
  agentState(cmd: AgentStateCommand): Promise<void>;
}

export interface CommandStreamOptions {
  api: SwitchApi;
  handlers: CommandHandlers;
  health: Health;
  log: LogLine;
  /** Commands older than this are not executed (PRODUCT.md §10: 60 s). */
  maxAgeSecs?: number;
  now?: () => number;
  /** Reconnect backoff (default 1 s → 30 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

const COMMANDS = new Set(['call.takeover', 'call.originate', 'agent.state']);

/**
 * The switch's side of GET /api/v2/stream: it keeps the stream open, executes
 * `call.takeover`, `call.originate` and `agent.state`, and after a drop reconnects (1 s → 30 s)
 * with `Last-Event-ID`, so commands pushed while it was away are delivered
 * then. A command older than 60 s is logged and not executed (the supervisor
 * has moved on); a command seen twice (the stream delivers at least once) is
 * executed once.
 */
export class CommandStream {
  /** The `id` of the last group read: where a reconnect resumes. */
  lastEventId: string | null = null;
  private abort: AbortController | null = null;
  private stopped = false;
  private readonly done = new Set<string>();
  private loop: Promise<void> | null = null;
  private readonly now: () => number;
  private connectedOnce: (() => void) | null = null;
  /** Resolves when the stream first answered 200 (tests wait for it before pushing commands). */
  readonly connected: Promise<void>;

  constructor(private readonly opts: CommandStreamOptions) {
    this.now = opts.now ?? Date.now;
    this.connected = new Promise((resolve) => (this.connectedOnce = resolve));
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort();
    await this.loop;
    this.opts.health.streamState = 'stopped';
  }

  private async run(): Promise<void> {
    const min = this.opts.minBackoffMs ?? 1000;
    let backoff = min;
    while (!this.stopped) {
      this.abort = new AbortController();
      this.opts.health.streamState = 'connecting';
      try {
        const res = await this.opts.api.stream(this.lastEventId, this.abort.signal);
        if (res.status !== 200 || !res.body) {
          const text = await res.text().catch(() => '');
          throw new Error(`stream answered HTTP ${res.status} ${text.slice(0, 200)}`);
        }
        this.opts.health.streamState = 'connected';
        this.connectedOnce?.();
        backoff = min;
        await this.read(res.body);
        if (!this.stopped) throw new Error('stream closed by the service');
      } catch (err) {
        if (this.stopped) break;
        const message = (err as Error).message;
        this.opts.health.streamState = 'disconnected';
        this.opts.health.error(`stream: ${message}`);
        this.opts.log(`stream: ${message}; reconnecting in ${backoff / 1000} s${this.lastEventId ? ` from id ${this.lastEventId}` : ''}`);
        await new Promise((r) => setTimeout(r, backoff).unref());
        backoff = Math.min(backoff * 2, this.opts.maxBackoffMs ?? 30_000);
      }
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const reader = body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const m of parser.feed(decoder.decode(value, { stream: true }))) await this.message(m);
    }
  }

  private async message(m: SseMessage): Promise<void> {
    if (m.event === 'reset') {
      this.opts.log('stream: the service could not resume from the last id (reset): commands pushed while disconnected may be lost');
    } else if (COMMANDS.has(m.event)) {
      await this.command(m.event, m.data);
    }
    if (m.id !== null) this.lastEventId = m.id;
  }

  private async command(event: string, data: string): Promise<void> {
    let cmd: TakeoverCommand | OriginateCommand | AgentStateCommand;
    try {
      cmd = JSON.parse(data) as TakeoverCommand | OriginateCommand | AgentStateCommand;
    } catch {
      this.opts.log(`stream: ${event} with unreadable data ignored`);
      return;
    }
    const subject = 'callId' in cmd ? cmd.callId : `agent ${cmd.agentId}`;
    const key = `${event}:${subject}:${cmd.seq}`;
    if (this.done.has(key)) return;
    this.done.add(key);
    if (this.done.size > 10_000) this.done.delete(this.done.values().next().value!);
    const age = this.now() / 1000 - cmd.ts;
    const maxAge = this.opts.maxAgeSecs ?? 60;
    if (age > maxAge) {
      this.opts.health.commandsSkipped++;
      this.opts.log(`${event} ${subject} not executed: pushed ${Math.round(age)} s ago (more than ${maxAge} s)`);
      return;
    }
    try {
      if (event === 'call.takeover') await this.opts.handlers.takeover(cmd as TakeoverCommand);
      else if (event === 'agent.state') await this.opts.handlers.agentState(cmd as AgentStateCommand);
      else await this.opts.handlers.originate(cmd as OriginateCommand);
      this.opts.health.commandsExecuted++;
    } catch (err) {
      const message = `${event} ${subject} failed: ${(err as Error).message}`;
      this.opts.health.error(message);
      this.opts.log(message);
    }
  }
}
