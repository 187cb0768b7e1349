import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/*
 * A scripted Asterisk Manager Interface for the connector's tests: it speaks
 * AMI's framing byte for byte (banner, `Key: Value` CRLF lines, a blank line
 * ending each message, `Privilege:` and `Timestamp:` headers as
 * `timestampevents=yes` gives them), answers Login, Ping, QueueStatus,
 * CoreShowChannels, Redirect, Originate, QueueAdd, QueuePause and QueueRemove, records every action, and writes
 * scripted events in small pieces so messages arrive split across reads.
 * Its parsing of actions is its own (a split on the blank line), not the
 * connector's parser.
 */

export type Fields = Record<string, string | number>;

export interface QueueStatusScript {
  members: Array<{ queue: string; location: string; paused?: boolean; reason?: string; inCall?: boolean }>;
  entries: Array<{ queue: string; channel: string; uniqueid: string; callerIdNum: string; wait: number; position: number }>;
  /** Live channels for CoreShowChannels. */
  channels: Array<{ channel: string; uniqueid: string; linkedid: string }>;
}

const CRLF = '\r\n';

/** One AMI message: the `Event:` (or `Response:`) line first, then the fields in order. */
export function amiEvent(name: string, privilege: string, ts: number | null, fields: Fields): string {
  let out = `Event: ${name}${CRLF}Privilege: ${privilege}${CRLF}`;
  if (ts !== null) out += `Timestamp: ${ts.toFixed(6)}${CRLF}`;
  for (const [k, v] of Object.entries(fields)) out += `${k}: ${v}${CRLF}`;
  return out + CRLF;
}

/** The channel snapshot fields Asterisk puts on channel events, with a prefix (`Dest`) for the other channel. */
export function channelFields(prefix: string, c: { channel: string; uniqueid: string; linkedid?: string; num: string; name?: string; exten?: string }): Fields {
  return {
    [`${prefix}Channel`]: c.channel,
    [`${prefix}ChannelState`]: 6,
    [`${prefix}ChannelStateDesc`]: 'Up',
    [`${prefix}CallerIDNum`]: c.num,
    [`${prefix}CallerIDName`]: c.name ?? '<unknown>',
    [`${prefix}ConnectedLineNum`]: '<unknown>',
    [`${prefix}ConnectedLineName`]: '<unknown>',
    [`${prefix}Language`]: 'en',
    [`${prefix}AccountCode`]: '',
    [`${prefix}Context`]: 'from-pstn',
    [`${prefix}Exten`]: c.exten ?? 's',
    [`${prefix}Priority`]: 1,
    [`${prefix}Uniqueid`]: c.uniqueid,
    [`${prefix}Linkedid`]: c.linkedid ?? c.uniqueid,
  };
}

export class FakeAmi {
  readonly actions: Fields[] = [];
  status: QueueStatusScript = { members: [], entries: [], channels: [] };
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;
  port = 0;
  logins = 0;
  /** The AMI user's secret: a Login with another one is refused as Asterisk refuses it. */
  secret = 's3cret';
  /** A link that is open but silent (a dead NAT mapping): actions are read and never answered. */
  mute = false;
  /** Actions the AMI user may not send (manager.conf write= lacks their class): answered `Permission denied`. */
  readonly denied = new Set<string>();
  /** A QueueStatus answer as a real Asterisk wrote it (its ActionID lines replaced by the action's), instead of `status`. */
  queueStatusRaw: string | null = null;

  async start(): Promise<void> {
    this.server = createServer((s) => this.accept(s));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Ends every connection (the switch restarts, the network fails). */
  drop(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  get connections(): number {
    return this.sockets.size;
  }

  /**
   * Writes raw AMI text to every connection in pieces of 1–17 bytes (messages
   * split across reads). Answers to actions that arrive meanwhile wait for the
   * last piece: Asterisk writes each message whole, never one inside another.
   */
  async send(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    let at = 0;
    let step = 1;
    this.held ??= [];
    try {
      while (at < bytes.length) {
        const piece = bytes.subarray(at, at + step);
        for (const s of this.sockets) s.write(piece);
        at += step;
        step = (step * 7) % 17 || 1;
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      const held = this.held;
      this.held = null;
      for (const [s, answer] of held) s.write(answer);
    }
  }

  /** Answers held back while a send in pieces is under way. */
  private held: [Socket, string][] | null = null;

  private accept(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => this.sockets.delete(s));
    s.write(`Asterisk Call Manager/7.0.3${CRLF}`);
    let buf = '';
    s.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let end: number;
      while ((end = buf.indexOf(CRLF + CRLF)) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 4);
        const fields: Fields = {};
        for (const line of block.split(CRLF)) {
          const i = line.indexOf(': ');
          if (i > 0) fields[line.slice(0, i)] = line.slice(i + 2);
        }
        this.actions.push(fields);
        if (this.mute) continue;
        const answer = this.answer(fields);
        if (this.held) this.held.push([s, answer]);
        else s.write(answer);
      }
    });
  }

  private answer(a: Fields): string {
    const id = String(a.ActionID ?? '');
    const ok = (more: Fields = {}) => {
      let out = `Response: Success${CRLF}ActionID: ${id}${CRLF}`;
      for (const [k, v] of Object.entries(more)) out += `${k}: ${v}${CRLF}`;
      return out + CRLF;
    };
    if (this.denied.has(String(a.Action))) return `Response: Error${CRLF}ActionID: ${id}${CRLF}Message: Permission denied${CRLF}${CRLF}`;
    if (a.Action === 'QueueStatus' && this.queueStatusRaw !== null) {
      return this.queueStatusRaw.replace(/\r?\n/g, CRLF).replace(/^ActionID: .*$/gm, `ActionID: ${id}`);
    }
    switch (a.Action) {
      case 'Login':
        this.logins++;
        if (a.Secret !== this.secret) return `Response: Error${CRLF}ActionID: ${id}${CRLF}Message: Authentication failed${CRLF}${CRLF}`;
        return ok({ Message: 'Authentication accepted' });
      case 'Ping':
        return ok({ Ping: 'Pong', Timestamp: (Date.now() / 1000).toFixed(6) });
      case 'Logoff':
        return `Response: Goodbye${CRLF}ActionID: ${id}${CRLF}Message: Thanks for all the fish.${CRLF}${CRLF}`;
      case 'QueueStatus': {
        let out = ok({ EventList: 'start', Message: 'Queue status will follow' });
        const queues = new Set([...this.status.members.map((m) => m.queue), ...this.status.entries.map((e) => e.queue)]);
        for (const q of queues) {
          const calls = this.status.entries.filter((e) => e.queue === q).length;
          out += amiEvent('QueueParams', 'agent,all', null, {
            Queue: q,
            Max: 0,
            Strategy: 'ringall',
            Calls: calls,
            Holdtime: 0,
            TalkTime: 0,
            Completed: 0,
            Abandoned: 0,
            ServiceLevel: 60,
            ServicelevelPerf: '0.0',
            ServicelevelPerf2: '0.0',
            Weight: 0,
            ActionID: id,
          });
        }
        for (const m of this.status.members) {
          out += amiEvent('QueueMember', 'agent,all', null, {
            Queue: m.queue,
            Name: m.location,
            Location: m.location,
            StateInterface: m.location,
            Membership: 'dynamic',
            Penalty: 0,
            CallsTaken: 0,
            LastCall: 0,
            LastPause: 0,
            LoginTime: 0,
            InCall: m.inCall ? 1 : 0,
            Status: m.inCall ? 2 : 1,
            Paused: m.paused ? 1 : 0,
            PausedReason: m.reason ?? '',
            Wrapuptime: 0,
            ActionID: id,
          });
        }
        for (const e of this.status.entries) {
          out += amiEvent('QueueEntry', 'agent,all', null, {
            Queue: e.queue,
            Position: e.position,
            Channel: e.channel,
            Uniqueid: e.uniqueid,
            CallerIDNum: e.callerIdNum,
            CallerIDName: '<unknown>',
            ConnectedLineNum: '<unknown>',
            ConnectedLineName: '<unknown>',
            Wait: e.wait,
            Priority: 0,
            ActionID: id,
          });
        }
        return out + amiEvent('QueueStatusComplete', 'agent,all', null, { ActionID: id, EventList: 'Complete', ListItems: 0 });
      }
      case 'CoreShowChannels': {
        let out = ok({ EventList: 'start', Message: 'Channels will follow' });
        for (const c of this.status.channels) {
          out += amiEvent('CoreShowChannel', 'system,reporting,all', null, {
            ActionID: id,
            ...channelFields('', { channel: c.channel, uniqueid: c.uniqueid, linkedid: c.linkedid, num: '0' }),
            Application: 'Queue',
            ApplicationData: 'sales',
            Duration: '00:00:10',
            BridgeId: '',
          });
        }
        return (
          out +
          amiEvent('CoreShowChannelsComplete', 'system,reporting,all', null, { ActionID: id, EventList: 'Complete', ListItems: this.status.channels.length })
        );
      }
      case 'Redirect':
        return ok({ Message: 'Redirect successful' });
      case 'Originate':
        return ok({ Message: 'Originate successfully queued' });
      case 'QueueAdd':
        return ok({ Message: 'Added interface to queue' });
      case 'QueuePause':
        return ok({ Message: 'Interface paused successfully' });
      case 'QueueRemove':
        return ok({ Message: 'Removed interface from queue' });
      default:
        return `Response: Error${CRLF}ActionID: ${id}${CRLF}Message: Invalid/unknown command${CRLF}${CRLF}`;
    }
  }
}
