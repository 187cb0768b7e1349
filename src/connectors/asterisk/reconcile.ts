import { switchEventId, type SwitchEvent, type SwitchState } from '../core/index.js';
import { header, type AmiMessage } from './ami-parser.js';
import { pauseReason, type AsteriskTranslator } from './translator.js';

export interface ReconcileInput {
  /** The events of `QueueStatus` (QueueParams, QueueMember, QueueEntry). */
  queueStatus: AmiMessage[];
  /** The events of `CoreShowChannels`, or null when it could not be read (then connected calls are left alone). */
  channels: AmiMessage[] | null;
  service: SwitchState;
  translator: AsteriskTranslator;
  group(queue: string): Promise<number | undefined>;
  agent(member: string): Promise<number | undefined>;
  /** Unix seconds now: the time of the corrections. */
  now: number;
}

/**
 * After every (re)connect: make the service's live state equal the switch's
 * (PRODUCT.md §10). Calls the switch no longer has are ended (reason
 * `completed` when answered; an unanswered one gets the service's default,
 * abandoned, since the service refuses `completed` for a call never
 * answered); waiting calls it reports that the service lacks are queued (DID
 * unknown); members it reports are logged in (and on break when paused),
 * agents it does not report are logged out. The translator's tracking is
 * rebuilt from the same answers, so later events map as before the outage.
 */
export async function reconcile(r: ReconcileInput): Promise<SwitchEvent[]> {
  const t = r.translator;
  const stamp = r.now.toFixed(6);
  const id = (...parts: Array<string | number>) => switchEventId('ast', 'reconcile', stamp, ...parts);
  t.reset();

  // What the switch has: members (agent → queue → pause reason) and waiting callers.
  for (const m of r.queueStatus.filter((e) => header(e, 'Event') === 'QueueMember')) {
    const agentId = await r.agent(header(m, 'Location') ?? header(m, 'Interface') ?? header(m, 'Name') ?? '');
    if (agentId === undefined) continue;
    const queues = t.members.get(agentId) ?? new Map<string, string | null>();
    queues.set(header(m, 'Queue') ?? '', header(m, 'Paused') === '1' ? pauseReason(m) : null);
    t.members.set(agentId, queues);
  }
  const waiting = new Map<string, AmiMessage>();
  for (const e of r.queueStatus.filter((x) => header(x, 'Event') === 'QueueEntry')) waiting.set(header(e, 'Uniqueid') ?? '', e);
  const live = r.channels === null ? null : new Set(r.channels.flatMap((c) => [header(c, 'Uniqueid'), header(c, 'Linkedid')]).filter((x): x is string => !!x));

  const out: SwitchEvent[] = [];
  const serviceCalls = new Map(r.service.calls.map((c) => [c.callId, c]));
  // 1. Calls the switch no longer has end first: their agents are then free to log out.
  for (const c of r.service.calls) {
    const stillThere = waiting.has(c.callId) || (live === null ? c.state !== 'queued' : live.has(c.callId));
    if (stillThere) {
      if (c.state !== 'queued' || !waiting.has(c.callId)) {
        const channel = r.channels?.find((x) => header(x, 'Uniqueid') === c.callId);
        t.track(
          {
            callId: c.callId,
            channel: channel ? (header(channel, 'Channel') ?? '') : '',
            answered: c.state === 'connected',
            ringing: c.ringingAgentId,
            agentId: c.agentId,
            onHold: false,
            takenOver: false,
            originated: c.callId.startsWith('ctc-'),
          },
          channel ? header(channel, 'Linkedid') : undefined,
        );
      }
      continue;
    }
    const ev: SwitchEvent = { eventId: id(c.callId, 'ended'), type: 'call.ended', ts: r.now, callId: c.callId };
    if (c.state === 'connected') ev.reason = 'completed';
    out.push(ev);
  }
  // 2. Agents: logged out when not a member of any queue, logged in / on break / back as the switch has them.
  const service = new Map(r.service.agents.map((a) => [a.agentId, a]));
  for (const a of r.service.agents) {
    if (a.loggedIn && !t.members.has(a.agentId)) out.push({ eventId: id(a.agentId, 'logout'), type: 'agent.logout', ts: r.now, agentId: a.agentId });
  }
  for (const [agentId, queues] of t.members) {
    const s = service.get(agentId);
    const reasons = [...queues.values()].filter((x): x is string => x !== null);
    if (!s?.loggedIn) out.push({ eventId: id(agentId, 'login'), type: 'agent.login', ts: r.now, agentId, loginType: 'SIP' });
    const onBreak = s?.loggedIn === true && s.breakReason !== null;
    if (reasons.length > 0 && !onBreak) out.push({ eventId: id(agentId, 'break'), type: 'agent.break.start', ts: r.now, agentId, reason: reasons[0] });
    if (reasons.length === 0 && onBreak) out.push({ eventId: id(agentId, 'unbreak'), type: 'agent.break.end', ts: r.now, agentId });
  }
  // 3. Waiting callers: followed again, and queued when the service lost them (queued at now − Wait).
  for (const [uid, e] of waiting) {
    const known = serviceCalls.get(uid);
    if (!known) {
      const groupId = await r.group(header(e, 'Queue') ?? '');
      if (groupId === undefined) continue;
      const wait = Number(header(e, 'Wait') ?? 0);
      const ev: SwitchEvent = {
        eventId: id(uid, 'queued'),
        type: 'call.queued',
        ts: r.now - (Number.isFinite(wait) ? wait : 0),
        callId: uid,
        groupId,
        direction: 'inbound',
      };
      const caller = header(e, 'CallerIDNum');
      if (caller && /\d/.test(caller) && !/unknown/i.test(caller)) ev.caller = caller;
      out.push(ev);
    }
    // A call the service has ringing an agent the switch no longer rings stays ringing until that agent's RingNoAnswer (Asterisk reports it).
    t.track({
      callId: uid,
      channel: header(e, 'Channel') ?? '',
      answered: false,
      ringing: known?.ringingAgentId ?? null,
      agentId: null,
      onHold: false,
      takenOver: false,
      originated: false,
    });
  }
  return out;
}
