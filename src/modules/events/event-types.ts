import { GENERAL } from '../../errors/catalogue.js';
import { isMilliseconds, secondsExpected } from '../../time/unix.js';
import { recordingPath } from '../calls/recording-path.js';

/** Telephony events as accepted by events/ingest (docs/events.md §1). */
export const EVENT_TYPES = [
  'agent.login',
  'agent.logout',
  'agent.break.start',
  'agent.break.end',
  'agent.wrapup.start',
  'agent.wrapup.end',
  'agent.sip',
  'call.queued',
  'call.ringing',
  'call.missed',
  'call.answered',
  'call.hold',
  'call.unhold',
  'call.ended',
  'call.recording',
  'call.dialing',
  'call.connected',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
const KNOWN = new Set<string>(EVENT_TYPES);

export interface TelephonyEvent {
  eventId: string;
  type: EventType;
  ts: number;
  callId?: string;
  agentId?: number;
  groupId?: number;
  did?: string;
  caller?: string;
  campaignId?: string;
  direction?: 'inbound' | 'outbound';
  retryOf?: string;
  reason?: string;
  loginType?: string;
  sipStatus?: string;
  /** call.connected (outbound): who answered the customer's line. */
  answeredBy?: 'human' | 'machine';
  /** call.recording: the file, relative to RECORDINGS_DIR. */
  path?: string;
}

/** A rejection: [code, message]. */
export type Rejection = [number, string];

const NEEDS_AGENT = new Set([
  'agent.login',
  'agent.logout',
  'agent.break.start',
  'agent.break.end',
  'agent.wrapup.start',
  'agent.wrapup.end',
  'agent.sip',
  'call.ringing',
  'call.answered',
]);
/** `call.ended` reasons: the inbound three, then the outbound dial's (PRODUCT.md §13). */
const END_REASONS = new Set(['completed', 'abandoned', 'failed', 'no_answer', 'busy', 'machine']);
/** Reasons of an outbound dial that never reached an agent: a `failed` call in the history. */
export const DIAL_FAILURES = new Set(['no_answer', 'busy', 'machine']);
/**
 * Outbound progress events (PRODUCT.md §13): they change no live state and
 * go to the outbound observer (the campaign dialer) alone.
 */
export const OUTBOUND_PROGRESS = new Set<string>(['call.dialing', 'call.connected']);
const LOGIN_TYPES = new Set(['Web', 'Mobile', 'SIP']);

function idOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string' && /^[0-9]{1,15}$/.test(v) && Number(v) > 0) return Number(v);
  return undefined;
}

function text(v: unknown, max = 128): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string' && v.length > 0 && v.length <= max) return v;
  return undefined;
}

/** Checks one raw event; answers the event or why it is rejected (the batch goes on). */
export function parseEvent(raw: unknown): TelephonyEvent | Rejection {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [1000, 'Invalid parameter: an event must be an object'];
  const r = raw as Record<string, unknown>;
  const eventId = text(r.eventId);
  if (eventId === undefined) return [1000, 'Invalid parameter: eventId (string or number, 1-128 characters)'];
  if (typeof r.type !== 'string' || !KNOWN.has(r.type))
    return [1001, `Invalid data type or value: type ${JSON.stringify(r.type ?? null)} is not an event type`];
  const type = r.type as EventType;
  if (typeof r.ts !== 'number' || !Number.isFinite(r.ts) || r.ts <= 0) return [1001, `${GENERAL[1001]}: ts must be Unix seconds`];
  if (isMilliseconds(r.ts)) return [1001, `${GENERAL[1001]}: ${secondsExpected('ts', r.ts)}`];
  const ev: TelephonyEvent = { eventId, type, ts: r.ts };
  if (r.agentId !== undefined && r.agentId !== null) {
    const a = idOf(r.agentId);
    if (a === undefined) return [1000, 'Invalid parameter: agentId'];
    ev.agentId = a;
  }
  if (NEEDS_AGENT.has(type) && ev.agentId === undefined) return [1000, `Invalid parameter: agentId is required for ${type}`];
  if (type.startsWith('call.')) {
    const callId = text(r.callId);
    if (callId === undefined) return [1000, `Invalid parameter: callId is required for ${type}`];
    ev.callId = callId;
  } else if (type === 'agent.wrapup.start' && r.callId !== undefined && r.callId !== null) {
    // The call the wrap-up belongs to (reports); without it, the agent's last answered call.
    const callId = text(r.callId);
    if (callId === undefined) return [1000, 'Invalid parameter: callId'];
    ev.callId = callId;
  }
  if (r.groupId !== undefined && r.groupId !== null) {
    const g = typeof r.groupId === 'number' && Number.isSafeInteger(r.groupId) && r.groupId >= 0 ? r.groupId : idOf(r.groupId);
    if (g === undefined) return [1000, 'Invalid parameter: groupId'];
    ev.groupId = g;
  }
  for (const k of ['did', 'campaignId', 'retryOf', 'reason', 'sipStatus'] as const) {
    const v = r[k];
    if (v === undefined || v === null) continue;
    const s = text(v);
    if (s === undefined) return [1000, `Invalid parameter: ${k}`];
    ev[k] = s;
  }
  if (r.caller !== undefined && r.caller !== null) {
    const s = text(r.caller, 64);
    if (s === undefined) return [1000, 'Invalid parameter: caller'];
    // Stored as digits when it has any, so queue/callTakeover finds it by number however it was written.
    const digits = s.replace(/\D/g, '');
    ev.caller = digits.length > 0 ? digits : s;
  }
  if (r.direction !== undefined && r.direction !== null) {
    if (r.direction !== 'inbound' && r.direction !== 'outbound') return [1000, 'Invalid parameter: direction must be inbound or outbound'];
    ev.direction = r.direction;
  }
  if (r.loginType !== undefined && r.loginType !== null) {
    if (typeof r.loginType !== 'string' || !LOGIN_TYPES.has(r.loginType)) return [1000, 'Invalid parameter: loginType must be Web, Mobile or SIP'];
    ev.loginType = r.loginType;
  }
  if (type === 'call.recording') {
    const path = recordingPath(r.path);
    if (path === undefined) return [1000, 'Invalid parameter: path must be a relative path of segments [A-Za-z0-9._-] (no . or ..), at most 512 characters'];
    ev.path = path;
  }
  if (type === 'call.connected') {
    if (r.answeredBy !== 'human' && r.answeredBy !== 'machine') return [1000, 'Invalid parameter: answeredBy must be human or machine'];
    ev.answeredBy = r.answeredBy;
  }
  if (type === 'agent.sip' && ev.sipStatus === undefined) return [1000, 'Invalid parameter: sipStatus is required for agent.sip'];
  if (type === 'call.ended' && ev.reason !== undefined && !END_REASONS.has(ev.reason)) {
    return [1000, 'Invalid parameter: reason must be completed, abandoned, failed, no_answer, busy or machine'];
  }
  return ev;
}
