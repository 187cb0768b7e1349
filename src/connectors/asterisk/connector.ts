import type { AgentStateCommand, ConnectorRuntime, OriginateCommand, SwitchEvent, TakeoverCommand } from '../core/index.js';
import { isCampaignDial, switchEventId } from '../core/index.js';
import { agentStateActions, campaignOriginateAction, originateAction, redirectAction } from './actions.js';
import { AmiClient } from './ami-client.js';
import { header, type AmiMessage } from './ami-parser.js';
import { reconcile } from './reconcile.js';
import { AsteriskTranslator } from './translator.js';

export interface AsteriskOptions {
  host: string;
  port: number;
  username: string;
  secret: string;
  /** `--did-var`: read the DID from this channel variable instead of the dialled Exten. */
  didVar: string | null;
  /** `--takeover-context` (default from-internal): where Redirect sends the caller. */
  takeoverContext: string;
  /** `--originate-context` (default from-internal): where Originate dials the customer. */
  originateContext: string;
  /** `--outbound-context` (default from-internal): where a campaign dial's `Local/<customer>@…` channel reaches the trunk. */
  outboundContext?: string;
  /** `--campaign-context` (default cc-campaign): where a campaign dial's answered customer continues (AMD, Queue; docs/asterisk.md). */
  campaignContext?: string;
  keepAliveMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * `callcenter connect asterisk`: AMI events in (translated, batched to
 * events/ingest), commands out (takeover → Redirect, click-to-call →
 * Originate, agent state → QueueAdd / QueuePause / QueueRemove), reconciliation after every (re)connect. Everything that touches
 * the translator's state — events, reconciliation, commands — runs one after
 * the other in arrival order.
 */
export class AsteriskConnector {
  readonly translator: AsteriskTranslator;
  readonly ami: AmiClient;
  private tail: Promise<void> = Promise.resolve();
  /** Reconciliations done (tests wait for the one after a reconnect). */
  reconciled = 0;

  constructor(
    private readonly rt: ConnectorRuntime,
    private readonly opts: AsteriskOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.translator = new AsteriskTranslator({ group: (q) => rt.group(q), agent: (...m) => rt.agent(...m), didVar: opts.didVar, now });
    this.ami = new AmiClient({
      host: opts.host,
      port: opts.port,
      username: opts.username,
      secret: opts.secret,
      keepAliveMs: opts.keepAliveMs,
      minBackoffMs: opts.minBackoffMs,
      maxBackoffMs: opts.maxBackoffMs,
      log: rt.log,
      // The queue logs and counts a failed task (enqueue): nothing to do with the promise here.
      onEvent: (m) => void this.enqueue(() => this.onEvent(m)),
      onConnected: () => {
        rt.health.switchState = 'connected';
        rt.log(`ami: connected to ${opts.host}:${opts.port}`);
        return this.enqueue(() => this.reconcile());
      },
      onDisconnected: (reason) => {
        rt.health.switchState = 'disconnected';
        rt.health.error(`ami: ${reason}`);
      },
    });
  }

  async start(): Promise<void> {
    await this.rt.start({
      takeover: (cmd) => this.enqueue(() => this.takeover(cmd)),
      originate: (cmd) => this.enqueue(() => this.originate(cmd)),
      agentState: (cmd) => this.enqueue(() => this.agentState(cmd)),
    });
    this.ami.start();
  }

  /** Logs off the AMI, then sends what is left; a task stuck on an unreachable service is given up on after 5 s. */
  async stop(): Promise<void> {
    await this.ami.stop();
    await Promise.race([this.tail, new Promise((r) => setTimeout(r, 5000).unref())]);
    await this.rt.stop();
  }

  /** Resolves when every event read so far is translated and sent. */
  async idle(): Promise<void> {
    await this.tail;
    await this.rt.batcher.flush();
  }

  /** Runs `task` after every task before it; its failure is logged and rethrown to its caller only. */
  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.tail.then(task);
    this.tail = run.catch((err: Error) => {
      this.rt.health.error(err.message);
      this.rt.log(err.message);
    });
    return run;
  }

  private async onEvent(m: AmiMessage): Promise<void> {
    const events = await this.translator.translate(m);
    this.rt.forward(...events);
  }

  private async reconcile(): Promise<void> {
    const queueStatus = await this.ami.list([['Action', 'QueueStatus']]);
    const channels = await this.ami.list([['Action', 'CoreShowChannels']]).catch((err: Error) => {
      this.rt.log(`ami: CoreShowChannels failed (${err.message}): connected calls are not reconciled; grant the AMI user write=reporting`);
      return null;
    });
    const service = await this.rt.serviceState();
    const events = await reconcile({
      queueStatus,
      channels,
      service,
      translator: this.translator,
      group: (q) => this.rt.group(q),
      agent: (...a) => this.rt.agent(...a),
      now: this.now() / 1000,
    });
    this.rt.forward(...events);
    await this.rt.batcher.flush();
    this.reconciled++;
    if (events.length > 0) this.rt.log(`ami: reconciled with QueueStatus: ${events.length} corrections`);
  }

  private async takeover(cmd: TakeoverCommand): Promise<void> {
    const call = this.translator.calls.get(cmd.callId);
    if (!call || !call.channel) {
      this.rt.log(`call.takeover ${cmd.callId}: not a call of this switch, skipped`);
      return;
    }
    const ext = this.rt.mapper.extensionOf(cmd.to) ?? this.rt.mapper.phoneOf(cmd.to)?.phone;
    if (!ext) throw new Error(`call.takeover ${cmd.callId}: agent ${cmd.to} has no SIP extension or phone`);
    await this.ami.action(redirectAction(call.channel, ext, this.opts.takeoverContext));
    // The service already moved the call; the queue's end events for the previous agent no longer apply.
    call.takenOver = true;
    call.answered = true;
    call.agentId = cmd.to;
    call.ringing = null;
    this.rt.log(`call.takeover ${cmd.callId}: ${call.channel} redirected to ${ext}@${this.opts.takeoverContext}`);
  }

  private async originate(cmd: OriginateCommand): Promise<void> {
    if (isCampaignDial(cmd)) return this.dial(cmd);
    const phone = this.rt.mapper.phoneOf(cmd.agentId);
    const extension = this.rt.mapper.extensionOf(cmd.agentId);
    const mobile = phone?.mobile === true && extension === undefined;
    if (!mobile && extension === undefined) throw new Error(`call.originate ${cmd.callId}: agent ${cmd.agentId} has no SIP extension`);
    const action = originateAction(cmd, { extension, phone: cmd.agentNumber || phone?.phone, mobile }, this.opts.originateContext);
    const ts = this.now() / 1000;
    const id = (what: string) => switchEventId('ast', cmd.callId, 'originate', what);
    const queued: SwitchEvent = { eventId: id('queued'), type: 'call.queued', ts, callId: cmd.callId, direction: 'outbound', caller: cmd.customer };
    if (cmd.did) queued.did = cmd.did;
    if (cmd.campaignId) queued.campaignId = cmd.campaignId;
    this.translator.trackOriginate(cmd.callId, cmd.agentId, action.find(([k]) => k === 'Channel')![1]);
    this.rt.forward(queued, { eventId: id('ringing'), type: 'call.ringing', ts, callId: cmd.callId, agentId: cmd.agentId });
    try {
      const res = await this.ami.action(action);
      this.rt.log(`call.originate ${cmd.callId}: ${header(res, 'Message') ?? 'queued'}`);
    } catch (err) {
      this.translator.calls.delete(cmd.callId);
      this.rt.forward(
        { eventId: id('missed'), type: 'call.missed', ts, callId: cmd.callId, agentId: cmd.agentId },
        { eventId: id('failed'), type: 'call.ended', ts, callId: cmd.callId, reason: 'failed' },
      );
      throw err;
    }
  }
  /**
   * A campaign's call.originate (PRODUCT.md §13): the customer's line first (campaignOriginateAction);
   * `call.dialing` once the switch took the Originate, the rest from the switch's events (translator).
   */
  private async dial(cmd: OriginateCommand & { campaignId: string; groupId: number; ringSecs: number }): Promise<void> {
    const agentId = cmd.agentId as number | undefined;
    const queue = this.rt.mapper.queuesOf(cmd.groupId)[0];
    const agentExtension = agentId === undefined ? undefined : this.rt.mapper.extensionOf(agentId);
    const ts = this.now() / 1000;
    const id = (what: string) => switchEventId('ast', cmd.callId, 'originate', what);
    const dialing: SwitchEvent = {
      eventId: id('dialing'),
      type: 'call.dialing',
      ts,
      callId: cmd.callId,
      direction: 'outbound',
      campaignId: cmd.campaignId,
      caller: cmd.customer,
    };
    if (cmd.did) dialing.did = cmd.did;
    const fail = (why: string): never => {
      this.rt.forward(dialing, { eventId: id('failed'), type: 'call.ended', ts, callId: cmd.callId, reason: 'failed' });
      throw new Error(`call.originate ${cmd.callId}: ${why}`);
    };
    if (agentId === undefined && queue === undefined) fail(`group ${cmd.groupId} has no switch queue (--queue-map or the group's name)`);
    if (agentId !== undefined && agentExtension === undefined) fail(`agent ${agentId} has no SIP extension`);
    const action = campaignOriginateAction(
      cmd,
      { queue: queue ?? '', agentExtension },
      this.opts.outboundContext ?? 'from-internal',
      this.opts.campaignContext ?? 'cc-campaign',
    );
    this.translator.trackCampaign(
      cmd.callId,
      {
        campaignId: cmd.campaignId,
        customer: cmd.customer,
        did: cmd.did,
        groupId: cmd.groupId,
        amd: cmd.amd === true,
        ...(agentId !== undefined ? { agentId } : {}),
      },
      action.find(([k]) => k === 'Channel')![1],
    );
    try {
      const res = await this.ami.action(action);
      this.rt.forward(dialing);
      this.rt.log(`call.originate ${cmd.callId} (campaign ${cmd.campaignId}): ${header(res, 'Message') ?? 'queued'}`);
    } catch (err) {
      this.translator.calls.delete(cmd.callId);
      fail((err as Error).message);
    }
  }

  /** agent.state: the member's interface as the switch names it (else `PJSIP/<extension>`), in the queues of its groups. */
  private async agentState(cmd: AgentStateCommand): Promise<void> {
    const ext = this.rt.mapper.extensionOf(cmd.agentId);
    const iface = this.translator.interfaces.get(cmd.agentId) ?? (ext !== undefined ? `PJSIP/${ext}` : undefined);
    if (iface === undefined) throw new Error(`agent.state: agent ${cmd.agentId} has no SIP extension (no queue member to act on)`);
    const current = this.translator.members.get(cmd.agentId) ?? new Map<string, string | null>();
    const queues = cmd.groupIds.flatMap((g) => this.rt.mapper.queuesOf(g));
    const actions = agentStateActions(cmd, iface, current, queues);
    if (actions.length === 0) {
      this.rt.log(
        `agent.state ${cmd.agentId} ${cmd.state}: already so on the switch${queues.length === 0 && current.size === 0 ? ' (no queue: the agent is in no group)' : ''}`,
      );
      return;
    }
    for (const a of actions) await this.ami.action(a);
    this.rt.log(`agent.state ${cmd.agentId} ${cmd.state}: ${actions.map((a) => a[0]![1]).join(', ')} for ${iface}`);
  }
}
