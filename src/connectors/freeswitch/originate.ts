import { switchEventId, type ConnectorRuntime, type OriginateCommand, type SwitchEvent } from '../core/index.js';
import { apiSucceeded, campaignOriginateCommand, hangupCauseReason, originateCommand } from './commands.js';
import { EslClient } from './esl-client.js';
import type { FreeswitchMapper } from './mapping.js';

export interface ClickToCallOptions {
  runtime: ConnectorRuntime;
  /** Where the event socket is (a second, command-only connection places each call). */
  esl: { esl: { host: string; port: number }; eslPassword: string };
  /** The subscribed connection: `uuid_exists` polls go through it. */
  mainEsl: EslClient;
  context: string;
  /** Campaign dials: `--outbound-context` (routes the customer's number out) and `--campaign-context` (AMD, the queue). */
  outboundContext?: string;
  campaignContext?: string;
  /** Where a campaign dial's answered channel is followed (AMD result, its queue visit). */
  mapper?: FreeswitchMapper;
  pollMs?: number;
  now?: () => number;
  /** A watched call ended (its channel is gone). */
  onEnded?: (callId: string) => void;
  backoff?: { initialMs: number; maxMs: number };
}

/** How long `originate` may take: the agent's phone rings up to FreeSWITCH's originate_timeout (60 s). */
const ORIGINATE_TIMEOUT_MS = 90_000;

/**
 * Click-to-call (`call.originate` from the stream): `originate` blocks until
 * the agent answers or the attempt fails, so it runs on a connection of its
 * own, leaving the main one free for events and reconciliation. The call is
 * reported under the service's callId: queued (outbound) and ringing when
 * placed, answered on `+OK <uuid>`, missed and failed on `-ERR`; its end is
 * seen by polling `uuid_exists` on the agent's leg (the subscription carries
 * no hangup events).
 */
export class ClickToCall {
  private readonly channels = new Map<string, string>();
  /** Queue calls taken over: out of mod_callcenter's hands, watched until their channel is gone. */
  private readonly watched = new Map<string, string>();
  /** Answered campaign dials not (yet) in a queue: callId → channel; their end outside mod_callcenter is seen here. */
  private readonly dialling = new Map<string, string>();
  /** The next check, when one is due: checks run one at a time, each scheduled after the last one ends. */
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private stopped = false;

  constructor(private readonly opts: ClickToCallOptions) {}

  /** Whether this call's end is seen here (a click-to-call, or a call taken over), not through mod_callcenter. */
  owns(callId: string): boolean {
    return this.channels.has(callId) || this.watched.has(callId) || this.dialling.has(callId);
  }

  /** After a takeover the caller's channel has left the queue: its end is seen by `uuid_exists`. */
  watch(callId: string, channelUuid: string): void {
    this.watched.set(callId, channelUuid);
    this.poll();
  }

  /** The agent's leg of a click-to-call in progress. */
  channelOf(callId: string): string | undefined {
    return this.channels.get(callId) || undefined;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  async originate(cmd: OriginateCommand): Promise<void> {
    const rt = this.opts.runtime;
    let ext = rt.mapper.extensionOf(cmd.agentId);
    if (ext === undefined) {
      await rt.refresh();
      ext = rt.mapper.extensionOf(cmd.agentId);
    }
    const phone = rt.mapper.phoneOf(cmd.agentId);
    const mobile = ext === undefined && phone?.mobile ? cmd.agentNumber || phone.phone : undefined;
    if (ext === undefined && !mobile) throw new Error(`agent ${cmd.agentId} has no SIP extension (nor a mobile phone) in switch/config`);
    const command = originateCommand({ callId: cmd.callId, extension: ext, mobile, customer: cmd.customer, did: cmd.did, context: this.opts.context });
    const now = this.opts.now ?? Date.now;
    const ev = (type: string, extra: Partial<SwitchEvent> = {}): SwitchEvent => ({
      eventId: switchEventId('fs', cmd.callId, `ctc-${type}`),
      type,
      ts: now() / 1000,
      callId: cmd.callId,
      ...extra,
    });
    this.channels.set(cmd.callId, '');
    rt.forward(
      ev('call.queued', {
        direction: 'outbound',
        caller: cmd.customer,
        ...(cmd.did ? { did: cmd.did } : {}),
        ...(cmd.campaignId ? { campaignId: cmd.campaignId } : {}),
      }),
      ev('call.ringing', { agentId: cmd.agentId }),
    );
    let answer: string;
    try {
      answer = await this.once(command);
    } catch (err) {
      answer = `-ERR ${(err as Error).message}`;
    }
    if (apiSucceeded(answer)) {
      const uuid = answer.trim().split(/\s+/)[1] ?? '';
      this.channels.set(cmd.callId, uuid);
      rt.forward(ev('call.answered', { agentId: cmd.agentId }));
      this.poll();
      rt.log(`freeswitch: click-to-call ${cmd.callId}: agent ${ext ?? mobile} answered, dialling ${cmd.customer}`);
    } else {
      this.channels.delete(cmd.callId);
      rt.forward(ev('call.missed', { agentId: cmd.agentId }), ev('call.ended', { reason: 'failed' }));
      throw new Error(`originate: ${answer.trim()}`);
    }
  }

  /**
   * A campaign's call.originate (PRODUCT.md §13): the customer first (campaignOriginateCommand), on a
   * connection of its own as `originate` blocks until the customer answers or the attempt fails.
   * `call.dialing` when it starts; `+OK <uuid>`: answered (call.connected human without AMD, else the
   * dialplan's cc::amd event says); `-ERR <cause>`: call.ended with hangupCauseReason's reason.
   */
  async dial(cmd: OriginateCommand & { campaignId: string; groupId: number; ringSecs: number }): Promise<void> {
    const rt = this.opts.runtime;
    const now = this.opts.now ?? Date.now;
    const agentId = cmd.agentId as number | undefined;
    const ev = (type: string, extra: Partial<SwitchEvent> = {}): SwitchEvent => ({
      eventId: switchEventId('fs', cmd.callId, `dial-${type}`, typeof extra.reason === 'string' ? extra.reason : undefined),
      type,
      ts: now() / 1000,
      callId: cmd.callId,
      ...extra,
    });
    rt.forward(ev('call.dialing', { direction: 'outbound', campaignId: cmd.campaignId, caller: cmd.customer, ...(cmd.did ? { did: cmd.did } : {}) }));
    let command: string;
    try {
      let queue = rt.mapper.queuesOf(cmd.groupId)[0];
      let ext = agentId === undefined ? undefined : rt.mapper.extensionOf(agentId);
      if (queue === undefined || (agentId !== undefined && ext === undefined)) {
        await rt.refresh();
        queue = rt.mapper.queuesOf(cmd.groupId)[0];
        ext = agentId === undefined ? undefined : rt.mapper.extensionOf(agentId);
      }
      if (queue === undefined) throw new Error(`group ${cmd.groupId} has no mod_callcenter queue`);
      command = campaignOriginateCommand({
        callId: cmd.callId,
        campaignId: cmd.campaignId,
        groupId: cmd.groupId,
        queue,
        customer: cmd.customer,
        did: cmd.did,
        ringSecs: cmd.ringSecs,
        amd: cmd.amd === true,
        machineAction: cmd.machineAction ?? 'hangup',
        ...(agentId !== undefined && ext !== undefined ? { agent: { extension: ext, agentId } } : {}),
        outboundContext: this.opts.outboundContext ?? 'default',
        campaignContext: this.opts.campaignContext ?? 'cc_campaign',
      });
    } catch (err) {
      rt.forward(ev('call.ended', { reason: 'failed' }));
      throw err;
    }
    let answer: string;
    try {
      answer = await this.once(command);
    } catch (err) {
      answer = `-ERR ${(err as Error).message}`;
    }
    if (!apiSucceeded(answer)) {
      rt.forward(ev('call.ended', { reason: hangupCauseReason(answer) }));
      rt.log(`freeswitch: campaign dial ${cmd.callId} to ${cmd.customer}: ${answer.trim()}`);
      return;
    }
    const uuid = answer.trim().split(/\s+/)[1] ?? '';
    this.opts.mapper?.dials.set(uuid, {
      callId: cmd.callId,
      campaignId: cmd.campaignId,
      customer: cmd.customer,
      did: cmd.did,
      groupId: cmd.groupId,
      amd: cmd.amd === true,
      ...(cmd.amd === true ? {} : { connected: 'human' as const }),
      ...(agentId !== undefined ? { agentId } : {}),
    });
    if (cmd.amd !== true) rt.forward(ev('call.connected', { answeredBy: 'human' }));
    this.dialling.set(cmd.callId, uuid);
    this.poll();
  }

  /** One command on a connection of its own. */
  private async once(command: string): Promise<string> {
    const { esl, eslPassword } = this.opts.esl;
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    const client = new EslClient({
      host: esl.host,
      port: esl.port,
      password: eslPassword,
      subscription: null,
      onEvent: () => undefined,
      onReady: () => ready(),
      log: this.opts.runtime.log,
      backoff: this.opts.backoff,
      commandTimeoutMs: ORIGINATE_TIMEOUT_MS,
    });
    client.start();
    try {
      await Promise.race([isReady, new Promise((_r, reject) => setTimeout(() => reject(new Error('event socket unreachable')), 10_000).unref())]);
      return await client.api(command);
    } finally {
      client.stop();
    }
  }

  /**
   * Schedules the next check while there is something to watch. Checks never
   * overlap (an interval would start one while the last still waits for its
   * answers on a slow socket), and a call added during a check is picked up
   * by the check scheduled when that one ends.
   */
  private poll(): void {
    if (this.stopped || this.checking || this.timer) return;
    if (this.channels.size === 0 && this.watched.size === 0 && this.dialling.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.checking = true;
      void this.check()
        .catch((err: Error) => this.opts.runtime.log(`freeswitch: channel check failed: ${err.message}`))
        .finally(() => {
          this.checking = false;
          this.poll();
        });
    }, this.opts.pollMs ?? 2000);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    const rt = this.opts.runtime;
    // Campaign dials: once in a queue mod_callcenter's events end them; before that (AMD, a machine hung up) the channel's end does.
    for (const [callId, uuid] of this.dialling) {
      const d = this.opts.mapper?.dials.get(uuid);
      if (!d || d.queued) {
        this.dialling.delete(callId);
        continue;
      }
      if (!this.opts.mainEsl.isReady) continue;
      const exists = (await this.opts.mainEsl.api(`uuid_exists ${uuid}`).catch(() => 'true')).trim();
      if (exists !== 'false') continue;
      this.dialling.delete(callId);
      this.opts.mapper?.forget(callId);
      const ts = (this.opts.now ?? Date.now)() / 1000;
      // The reserved agent still ringing when the customer left: that ring ends unanswered first.
      if (d.agentLeg === 'ringing' && d.agentId !== undefined)
        rt.forward({ eventId: switchEventId('fs', callId, 'dial-call.missed'), type: 'call.missed', ts, callId, agentId: d.agentId });
      rt.forward({
        eventId: switchEventId('fs', callId, 'dial-call.ended'),
        type: 'call.ended',
        ts,
        callId,
        reason: d.agentLeg === 'answered' ? 'completed' : d.connected === 'machine' ? 'machine' : 'abandoned',
      });
    }
    for (const [map, kind] of [
      [this.channels, 'ctc'],
      [this.watched, 'taken'],
    ] as const) {
      for (const [callId, uuid] of map) {
        if (!uuid || !this.opts.mainEsl.isReady) continue;
        const exists = (await this.opts.mainEsl.api(`uuid_exists ${uuid}`).catch(() => 'true')).trim();
        if (exists !== 'false') continue;
        map.delete(callId);
        rt.forward({
          eventId: switchEventId('fs', callId, `${kind}-call.ended`),
          type: 'call.ended',
          ts: (this.opts.now ?? Date.now)() / 1000,
          callId,
          reason: 'completed',
        });
        this.opts.onEnded?.(callId);
      }
    }
  }
}
