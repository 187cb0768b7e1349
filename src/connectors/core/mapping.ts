import type { SwitchConfig } from './api-client.js';
import { OnceLog, type LogLine } from './log.js';

/**
 * The extension of a queue member as switches name them (PRODUCT.md §10):
 * `PJSIP/5001`, `SIP/5001`, `IAX2/5001`, `Local/5001@ctx/n`, a FreeSWITCH agent
 * `5001@default`, or a bare `5001`. A channel name's `-0000002a` suffix
 * (`PJSIP/5001-0000002a`) is dropped, so a channel maps as its member does.
 */
export function memberExtension(member: string): string {
  let s = member.trim();
  const slash = s.indexOf('/');
  if (slash >= 0) s = s.slice(slash + 1);
  s = s.split('@')[0]!.split('/')[0]!;
  // PJSIP/5001-0000002a: a channel of endpoint 5001.
  const dash = /^(.+)-[0-9a-f]{8}$/.exec(s);
  if (dash) s = dash[1]!;
  return s;
}

/** The extension an agent's SIP `dest_value` names: `sip:5001@host`, `5001@host`, `PJSIP/5001` or `5001` → `5001`. */
export function destExtension(destValue: string): string {
  const v = destValue.trim().replace(/^sips?:/i, '');
  return memberExtension(v);
}

/** The queue name a group is matched by: FreeSWITCH's `support@default` is `support`. */
export function queueName(queue: string): string {
  return queue.split('@')[0]!.trim();
}

export interface MapperOptions {
  /** `--queue-map`: queue name → group id, before the names. */
  queueMap?: Map<string, number>;
  /** `--agent-map`: extension or member name → agent id, for members no SIP destination or agent name matches. */
  agentMap?: Map<string, number>;
  log: LogLine;
}

/**
 * Queues → groups and members → agents, from switch/config. Pure lookups:
 * the runtime refreshes the config (every 60 s, and when a name is unknown).
 * An unknown name is logged once per name and answers undefined (the event
 * is skipped).
 */
export class SwitchMapper {
  private groups = new Map<string, number>();
  private agents = new Map<string, number>();
  /** Agent names, lower-cased: a member named as the agent is (`MemberName`, queue_log's agent field). */
  private names = new Map<string, number>();
  private extensions = new Map<number, string>();
  private phones = new Map<number, { phone: string; mobile: boolean }>();
  private didSet = new Set<string>();
  private readonly once: OnceLog;

  constructor(private readonly opts: MapperOptions) {
    this.once = new OnceLog(opts.log);
  }

  /** Replaces the config (a refresh). Explicit maps stay first. */
  load(config: SwitchConfig): void {
    this.groups = new Map(config.groups.map((g) => [g.name, g.groupId]));
    const agents = new Map<string, number>();
    const names = new Map<string, number>();
    this.extensions = new Map();
    this.phones = new Map();
    for (const a of config.agents) {
      const name = a.name.trim().toLowerCase();
      if (name && !names.has(name)) names.set(name, a.agentId);
      const mobile = a.dest_type.toUpperCase() === 'MOBILE';
      this.phones.set(a.agentId, { phone: a.phone, mobile });
      if (a.dest_value && !mobile) {
        const ext = destExtension(a.dest_value);
        if (ext && !agents.has(ext)) agents.set(ext, a.agentId);
        if (ext) this.extensions.set(a.agentId, ext);
      }
    }
    for (const [ext, id] of this.opts.agentMap ?? []) this.extensions.set(id, ext);
    this.agents = agents;
    this.names = names;
    this.didSet = new Set(config.dids);
  }

  /** The group of a switch queue, or undefined (logged once). */
  group(queue: string): number | undefined {
    const name = queueName(queue);
    const id = this.opts.queueMap?.get(name) ?? this.opts.queueMap?.get(queue) ?? this.groups.get(name);
    if (id === undefined)
      this.once.once(`q:${name}`, `unknown queue ${JSON.stringify(name)}: no group of that name and no --queue-map entry; its events are skipped`);
    return id;
  }

  /**
   * The agent of a queue member, or undefined (logged once). A member goes by
   * several names (AMI's `Interface`, `MemberName`, `StateInterface`;
   * queue_log's agent field is the member's name): each is tried, in order,
   * as a SIP extension, then as an agent's name (case-insensitive), then as
   * an `--agent-map` key, as PRODUCT.md §16 says.
   */
  agent(...member: Array<string | undefined>): number | undefined {
    const id = this.lookup(member);
    if (id === undefined) {
      const names = [...new Set(member.filter((m): m is string => !!m && m.trim() !== '').map((m) => m.trim()))];
      const shown = names.map((n) => JSON.stringify(n)).join(' / ') || '""';
      // Extensions only of names that look like a channel or a number (`PJSIP/7777`, `7777@default`), not of a person's name.
      const exts = [...new Set(names.filter((n) => /[/@]|^\d+$/.test(n)).map(memberExtension))].join(', ');
      // Logged once per member: PJSIP/9999 and SIP/9999 are one unknown member.
      this.once.once(
        `a:${exts || names.join('|').toLowerCase()}`,
        `unknown member ${shown}: no agent ${exts ? `with SIP destination ${exts} or ` : ''}of that name, and no --agent-map entry; its events are skipped`,
      );
    }
    return id;
  }

  private lookup(member: Array<string | undefined>): number | undefined {
    const names = member.filter((m): m is string => !!m && m.trim() !== '').map((m) => m.trim());
    for (const n of names) {
      const id = this.agents.get(memberExtension(n));
      if (id !== undefined) return id;
    }
    for (const n of names) {
      const id = this.names.get(n.toLowerCase());
      if (id !== undefined) return id;
    }
    // Last, as PRODUCT.md §16 orders it: the map names the members the switch's own names cannot.
    const map = this.opts.agentMap;
    for (const n of names) {
      const id = map?.get(memberExtension(n)) ?? map?.get(n);
      if (id !== undefined) return id;
    }
    return undefined;
  }

  /** Whether `group` / `agent` would answer without logging (the runtime refreshes the config first when not). */
  knowsQueue(queue: string): boolean {
    const name = queueName(queue);
    return this.opts.queueMap?.has(name) === true || this.opts.queueMap?.has(queue) === true || this.groups.has(name);
  }

  knowsMember(...member: Array<string | undefined>): boolean {
    return this.lookup(member) !== undefined;
  }

  /**
   * The switch queues of a group (agent.state acts on an agent's queues): the `--queue-map` names
   * mapped to it, else the group's name.
   */
  queuesOf(groupId: number): string[] {
    const mapped = [...(this.opts.queueMap ?? [])].filter(([, id]) => id === groupId).map(([name]) => name);
    if (mapped.length > 0) return mapped;
    return [...this.groups].filter(([, id]) => id === groupId).map(([name]) => name);
  }

  /** The SIP extension of an agent (takeover, originate), or undefined. */
  extensionOf(agentId: number): string | undefined {
    return this.extensions.get(agentId);
  }

  /** The agent's phone and whether it answers on it (dest_type MOBILE). */
  phoneOf(agentId: number): { phone: string; mobile: boolean } | undefined {
    return this.phones.get(agentId);
  }

  isDid(did: string): boolean {
    return this.didSet.has(did);
  }
}
