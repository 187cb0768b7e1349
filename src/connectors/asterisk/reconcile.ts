import { switchEventId, type SwitchEvent, type SwitchState } from '../core/index.js';
import { header, type AmiMessage } from './ami-parser.js';
import { memberNames, pauseReason, type AsteriskTranslator } from './translator.js';

/** The caller channel (Uniqueid) of a call id: a later queue visit is `<uniqueid>-v<n>` (visitCallId). */
function channelOf(callId: string): { uid: string; visit: number } {
  const m = /^(.*)-v(\d+)$/.exec(callId);
  return m ? { uid: m[1]!, visit: Number(m[2]) } : { uid: callId, visit: 1 };
}

/** QueueMember `Status` (ast_device_state) of a member on a call: in use, busy, ringing in use, on hold; or `InCall: 1` (13+). */
function inCall(m: AmiMessage): boolean {
  return header(m, 'InCall') === '1' || ['2', '3', '7', '8'].includes(header(m, 'Status') ?? '');
}

export interface ReconcileInput {
  /** The events of `QueueStatus` (QueueParams, QueueMember, QueueEntry). */
  queueStatus: AmiMessage[];
  /** The events of `CoreShowChannels`, or null when it could not be read (then connected calls are left alone). */
  channels: AmiMessage[] | null;
  service: SwitchState;
  translator: AsteriskTranslator;
  group(queue: string): Promise<number | undefined>;
  agent(...member: Array<string | undefined>): Promise<number | undefined>;
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
  /** Agents QueueStatus shows on a call (what tells, without CoreShowChannels, that a connected call goes on). */
  const busy = new Set<number>();
  for (const m of r.queueStatus.filter((e) => header(e, 'Event') === 'QueueMember')) {
    // Static members (queues.conf) are reported here like dynamic ones: `Name` / `MemberName` their name, `Location` the interface.
    const agentId = await r.agent(...memberNames(m));
    if (agentId === undefined) continue;
    if (inCall(m)) busy.add(agentId);
    // The interface agent.state's actions name (Location: `PJSIP/5001`, `Local/5001@ctx/n`).
    const location = header(m, 'Location') ?? header(m, 'Interface');
    if (location?.includes('/')) t.interfaces.set(agentId, location);
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
  const serviceByChannel = new Map(r.service.calls.map((c) => [channelOf(c.callId).uid, c]));
  for (const c of r.service.calls) {
    // A campaign dial this connector placed is followed by its own channel's events (translator.reset keeps it).
    if (t.campaignCall(c.callId)) continue;
    const { uid, visit } = channelOf(c.callId);
    if (visit > (t.visits.get(uid)?.n ?? 0)) t.visits.set(uid, { n: visit, last: c.callId });
    // Without CoreShowChannels (the AMI user lacks `reporting`): a connected call goes on while QueueStatus shows its agent on a call.
    const connectedGoesOn = live === null ? c.state === 'connected' && (c.agentId === null || busy.has(c.agentId)) : live.has(uid);
    const stillThere = waiting.has(uid) || (c.state === 'connected' ? connectedGoesOn : live === null ? false : live.has(uid));
    if (stillThere) {
      if (c.state !== 'queued' || !waiting.has(uid)) {
        const channel = r.channels?.find((x) => header(x, 'Uniqueid') === uid);
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
          uid,
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
    if (t.campaignCall(uid)) continue;
    const known = serviceCalls.get(uid) ?? serviceByChannel.get(uid);
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
    const callId = known?.callId ?? uid;
    if (!known && !t.visits.has(uid)) t.visits.set(uid, { n: 1, last: uid });
    t.track(
      {
        callId,
        channel: header(e, 'Channel') ?? '',
        answered: false,
        ringing: known?.ringingAgentId ?? null,
        agentId: null,
        onHold: false,
        takenOver: false,
        originated: false,
        queue: header(e, 'Queue') ?? '',
        queuedTs: r.now - Number(header(e, 'Wait') ?? 0),
        lastTs: r.now,
      },
      uid,
    );
  }
  return out;
}
