import { ConnectorRuntime, isCampaignDial, type AgentStateCommand, type RuntimeOptions, type TakeoverCommand } from '../core/index.js';
import { parseAgentList, parseMemberList, parseQueueList, type SwitchMember } from './callcenter-config.js';
import { agentStatusCommand, apiSucceeded, takeoverCommand } from './commands.js';
import { EslClient } from './esl-client.js';
import type { EslEvent } from './esl-framing.js';
import { FreeswitchMapper, statusOf } from './mapping.js';
import { ClickToCall } from './originate.js';
import { isChannelUuid, reconcile, stuckReserved } from './reconcile.js';

export interface FreeswitchOptions extends RuntimeOptions {
  esl: { host: string; port: number };
  eslPassword: string;
  /** `--takeover-context` (default `default`): where uuid_transfer sends the caller. */
  takeoverContext: string;
  /** `--originate-context` (default `default`): the dialplan context that dials the customer. */
  originateContext: string;
  /** `--outbound-context` (default `default`): where a campaign dial's `loopback/<customer>/…` routes the number out. */
  outboundContext?: string;
  /** `--campaign-context` (default `cc_campaign`): where the answered customer runs extension `campaign` (AMD, the queue). */
  campaignContext?: string;
  /** `--reconcile-s` (default 60). */
  reconcileSecs: number;
  /** `--fix-reserved` (default on): set agents stuck in Reserved back to Waiting on the switch. */
  fixReserved: boolean;
  /**
   * `--multi-switch` (default off): other switches feed the same account, so
   * only the calls this process saw are ended, and no agent is logged out for
   * being absent from this switch's agent list.
   */
  multiSwitch?: boolean;
  /** ESL reconnect delays (default 1 s → 30 s; tests shorten them). */
  eslBackoff?: { initialMs: number; maxMs: number };
  /** How often a click-to-call's channel is checked for its end (default 2 s). */
  ctcPollMs?: number;
}

/**
 * `callcenter connect freeswitch`: mod_callcenter's events through the event
 * socket, mapped and forwarded by the connector core; stream commands run as
 * FreeSWITCH API commands; and a reconciliation with `callcenter_config` after
 * every (re)connect and every `--reconcile-s`.
 */
export class FreeswitchConnector {
  readonly runtime: ConnectorRuntime;
  readonly esl: EslClient;
  readonly mapper: FreeswitchMapper;
  readonly ctc: ClickToCall;
  /** Completed reconciliation passes and events read from the socket (tests wait on them). */
  reconciled = 0;
  received = 0;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private reconciling: Promise<void> | null = null;
  private reserved = new Set<string>();
  /** mod_callcenter agent name → agent id, from the agent lists read (agent.state names the agent by it). */
  private readonly agentNames = new Map<string, number>();
  /** Calls and agents events touched while a pass runs: the pass leaves them to the next one. */
  private touched: Set<string> | null = null;

  constructor(private readonly opts: FreeswitchOptions) {
    this.runtime = new ConnectorRuntime(opts);
    const rt = this.runtime;
    this.mapper = new FreeswitchMapper({ groupId: (q) => rt.group(q), agentId: (a) => rt.agent(a) }, rt.log, opts.now);
    this.esl = new EslClient({
      host: opts.esl.host,
      port: opts.esl.port,
      password: opts.eslPassword,
      backoff: opts.eslBackoff,
      log: rt.log,
      onEvent: (ev) => this.enqueue(ev),
      onReady: () => {
        rt.health.switchState = 'connected';
        void this.reconcile();
      },
      onDown: (reason) => {
        rt.health.switchState = 'disconnected';
        rt.health.error(`event socket: ${reason}`);
      },
    });
    this.ctc = new ClickToCall({
      runtime: rt,
      esl: opts,
      context: opts.originateContext,
      outboundContext: opts.outboundContext,
      campaignContext: opts.campaignContext,
      mapper: this.mapper,
      mainEsl: this.esl,
      pollMs: opts.ctcPollMs,
      backoff: opts.eslBackoff,
      now: opts.now,
      onEnded: (callId) => this.mapper.forget(callId),
    });
  }

  async start(): Promise<void> {
    await this.runtime.start({
      takeover: (c) => this.takeover(c),
      originate: (c) => (isCampaignDial(c) ? this.ctc.dial(c) : this.ctc.originate(c)),
      agentState: (c) => this.agentState(c),
    });
    this.esl.start();
    this.timer = setInterval(() => void this.reconcile(), this.opts.reconcileSecs * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.ctc.stop();
    this.esl.stop();
    await this.chain;
    await this.runtime.stop();
  }

  /** Events are mapped one after the other: names may need a config read, and order is kept. */
  private enqueue(ev: EslEvent): void {
    this.received++;
    this.chain = this.chain
      .then(async () => {
        const events = await this.mapper.map(ev);
        for (const e of events) {
          if (e.callId) this.touched?.add(`call:${e.callId}`);
          if (e.agentId) this.touched?.add(`agent:${e.agentId}`);
        }
        this.runtime.forward(...events);
      })
      .catch((err: Error) => this.runtime.log(`freeswitch: event not mapped: ${err.message}`));
  }

  /** Waits until every event received so far is mapped and sent (tests, reconciliation). */
  async settle(): Promise<void> {
    await this.chain;
    await this.runtime.batcher.flush();
  }

  private async takeover(cmd: TakeoverCommand): Promise<void> {
    const rt = this.runtime;
    const leg = this.ctc.channelOf(cmd.callId);
    if (!leg && (!isChannelUuid(cmd.callId) || (this.opts.multiSwitch === true && !this.mapper.tracks(cmd.callId)))) {
      rt.log(`freeswitch: call.takeover ${cmd.callId}: not a call of this switch, skipped`);
      return;
    }
    let ext = rt.mapper.extensionOf(cmd.to);
    if (ext === undefined) {
      await rt.refresh();
      // A supervisor without an extension takes the call on their phone: the context routes the number out.
      ext = rt.mapper.extensionOf(cmd.to) ?? (rt.mapper.phoneOf(cmd.to)?.phone || undefined);
    }
    if (ext === undefined) throw new Error(`agent ${cmd.to} has no SIP extension or phone in switch/config`);
    // A click-to-call is the agent's leg bridged to the customer: the customer is its B-leg.
    const command = leg ? takeoverCommand(leg, ext, this.opts.takeoverContext, true) : takeoverCommand(cmd.callId, ext, this.opts.takeoverContext);
    // Set before the transfer: mod_callcenter reports the member's end as soon as the channel leaves the queue.
    if (!leg) this.mapper.takenOver.add(cmd.callId);
    let answer: string;
    try {
      answer = await this.esl.api(command);
    } catch (err) {
      this.mapper.takenOver.delete(cmd.callId);
      throw err;
    }
    if (!apiSucceeded(answer)) {
      this.mapper.takenOver.delete(cmd.callId);
      throw new Error(`uuid_transfer: ${answer.trim()}`);
    }
    if (!leg) this.ctc.watch(cmd.callId, cmd.callId);
    rt.log(`freeswitch: call ${cmd.callId} transferred to ${ext} (takeover by agent ${cmd.to})`);
  }

  /**
   * agent.state → `callcenter_config agent set status`. The agent's mod_callcenter name is the one
   * the agent list maps to it (read again when unknown); the switch then reports
   * `agent-status-change`, which becomes the agent's event.
   */
  private async agentState(cmd: AgentStateCommand): Promise<void> {
    const rt = this.runtime;
    let name = [...this.agentNames].find(([, id]) => id === cmd.agentId)?.[0];
    if (name === undefined) {
      for (const a of parseAgentList(await this.esl.api('callcenter_config agent list'))) {
        const id = await rt.agent(a.name);
        if (id !== undefined) this.agentNames.set(a.name, id);
        if (id === cmd.agentId) name = a.name;
      }
    }
    if (name === undefined) throw new Error(`agent.state: agent ${cmd.agentId} is no mod_callcenter agent of this switch`);
    if (cmd.state === 'break' && cmd.reason) this.mapper.breakReasons.set(name, cmd.reason);
    const answer = await this.esl.api(agentStatusCommand(name, cmd.state));
    if (!apiSucceeded(answer)) {
      this.mapper.breakReasons.delete(name);
      throw new Error(`callcenter_config agent set status ${name}: ${answer.trim()}`);
    }
    rt.log(`freeswitch: agent ${name} (${cmd.agentId}) set to ${cmd.state}`);
  }

  /** One pass at a time; a pass while the socket is down waits for the reconnect's pass. */
  reconcile(): Promise<void> {
    if (!this.esl.isReady) return Promise.resolve();
    this.reconciling ??= this.pass()
      .catch((err: Error) => {
        this.runtime.health.error(`reconcile: ${err.message}`);
        this.runtime.log(`freeswitch: reconciliation failed: ${err.message}`);
      })
      .finally(() => {
        this.reconciling = null;
      });
    return this.reconciling;
  }

  private async pass(): Promise<void> {
    this.touched = new Set();
    try {
      await this.compare();
    } finally {
      this.touched = null;
    }
  }

  private async compare(): Promise<void> {
    const rt = this.runtime;
    const agents = parseAgentList(await this.esl.api('callcenter_config agent list'));
    const queues = parseQueueList(await this.esl.api('callcenter_config queue list'));
    const members: SwitchMember[] = [];
    // A campaign dial's channel in a queue is the service's call under the dial's id: its own events follow it.
    for (const q of queues)
      members.push(...parseMemberList(await this.esl.api(`callcenter_config queue list members ${q}`)).filter((m) => !this.mapper.dials.has(m.sessionUuid)));
    // mod_callcenter keeps members whose channel is gone ("answered after they left"): ask the switch.
    const deadChannels = new Set<string>();
    for (const m of members) {
      if (isChannelUuid(m.sessionUuid) && (await this.esl.api(`uuid_exists ${m.sessionUuid}`)).trim() === 'false') deadChannels.add(m.sessionUuid);
    }
    await this.chain; // events that arrived before the lists are in the service's state before it is read
    const state = await rt.serviceState();
    const agentIds = new Map<string, number>();
    for (const a of agents) {
      const id = await rt.agent(a.name);
      if (id !== undefined) agentIds.set(a.name, id);
      if (id !== undefined) this.agentNames.set(a.name, id);
      const s = statusOf(a.status);
      if (s) this.mapper.agentStatus.set(a.name, s);
    }
    const groupIds = new Map<string, number>();
    for (const q of queues) {
      const id = await rt.group(q);
      if (id !== undefined) groupIds.set(q, id);
    }
    const multi = this.opts.multiSwitch === true;
    const sipAgentIds = new Set(multi ? [] : state.agents.map((a) => a.agentId).filter((id) => rt.mapper.extensionOf(id) !== undefined));
    const now = (this.opts.now ?? Date.now)() / 1000;
    const all = reconcile({
      snapshot: { agents, members, deadChannels },
      state,
      agentIds,
      groupIds,
      sipAgentIds,
      ownsCall: (callId) => isChannelUuid(callId) && !this.ctc.owns(callId) && (!multi || this.mapper.tracks(callId)),
      now,
    });
    // The switch's lists and the service's state were read at different moments: what events
    // touched in between may be in one and not the other, so it waits for the next pass.
    await this.chain;
    const touched = this.touched ?? new Set<string>();
    const corrections = all.filter((c) => !touched.has(`call:${c.event.callId}`) && !touched.has(`agent:${c.event.agentId}`));
    for (const c of corrections) {
      rt.log(
        `freeswitch: reconcile: ${c.event.type}${c.event.callId ? ` call ${c.event.callId}` : ''}${c.event.agentId ? ` agent ${c.event.agentId}` : ''}: ${c.why}`,
      );
      if (c.event.type === 'call.ended') this.mapper.forget(c.event.callId!);
    }
    for (const m of members) if (!deadChannels.has(m.sessionUuid)) this.mapper.adopt(m.sessionUuid, m.state === 'Answered');
    rt.forward(...corrections.map((c) => c.event));
    await rt.batcher.flush();
    await this.fixReserved(agents, members);
    this.reconciled++;
  }

  private async fixReserved(agents: ReturnType<typeof parseAgentList>, members: SwitchMember[]): Promise<void> {
    const { stuck, reserved } = stuckReserved(agents, members, this.reserved);
    this.reserved = reserved;
    for (const name of stuck) {
      if (!this.opts.fixReserved) {
        this.runtime.log(`freeswitch: agent ${name} is stuck in Reserved with no call offered (--fix-reserved off: left as is)`);
        continue;
      }
      const answer = await this.esl.api(`callcenter_config agent set state ${name} Waiting`);
      this.runtime.log(`freeswitch: agent ${name} was stuck in Reserved with no call offered: set to Waiting (${answer.trim()})`);
      this.reserved.delete(name);
    }
  }
}
