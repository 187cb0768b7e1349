import { expect } from 'vitest';
import { createAgent, createDid, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login, unique, type Session } from '../helpers/factories.js';
import type { Harness } from '../helpers/harness.js';
import { baseUrl, openSse, type SseMessage, type SseReader } from '../helpers/sse.js';
import { ev, ingestOk } from './events.fixtures.js';

/*
 * The campaign suites' world: a tenant with a DID, a group, agents logged in,
 * a contact list, and the switch's side of the stream (the suite acts as the
 * switch: it reads `call.originate` and answers with events).
 */

type Row = Record<string, unknown>;

/** `n` numbers of the form base + a random multiple of 10 + i: distinct within a call, rarely alike across calls. */
export const freshNumbers = (n: number, base: number): string[] =>
  Array.from({ length: n }, (_, i) => String(base + Math.floor(Math.random() * 50_000) * 10 + i));

/** A request that must succeed; its body. */
export async function ok(h: Harness, path: string, body: Row) {
  const res = await h.post(path, body);
  expect(res.body.status, `${path} ${JSON.stringify(res.body)}`).toBe('success');
  return res.body;
}

export interface World {
  t: Session & { accountId: number };
  did: string;
  group: number;
  agents: Array<{ agentId: number; email: string; password: string }>;
  clId: number;
  stream: SseReader;
  /** call.originate commands of campaigns already handed out by `dialled`. */
  seen: Set<string>;
}

/** Calling hours that hold whatever the time of day (the hours rule has its own tests). */
export const ALL_DAY = { start: '00:00', end: '23:59', weekDays: [1, 2, 3, 4, 5, 6, 7] };

export async function world(h: Harness, opts: { agents?: number; numbers?: Array<string | Row>; loggedIn?: boolean } = {}): Promise<World> {
  const t = await createTenant(h);
  const did = await createDid(h, t);
  const group = await createGroup(h, t);
  // Agents who may do what an agent does, not manage campaigns: a disposition is theirs only for their own calls.
  const role = await createRole(h, t, { permissions: ['agent.view', 'queue.view'] });
  const agents = [];
  for (let i = 0; i < (opts.agents ?? 1); i++) agents.push(await createAgent(h, t, { group, role }));
  if (opts.loggedIn !== false && agents.length > 0)
    await ingestOk(
      h,
      t.ssid,
      agents.map((a) => ev(h, 'agent.login', { agentId: a.agentId })),
    );
  const clId = await createList(h, t, opts.numbers ?? []);
  const sw = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
  const stream = await openSse(`${await baseUrl(h)}/api/v2/stream?userId=${sw.body.userId}&token=${sw.body.token}`);
  await stream.next((m) => m.event === 'ready');
  return { t, did, group, agents, clId, stream, seen: new Set() };
}

export async function createList(h: Harness, t: Session, numbers: Array<string | Row>): Promise<number> {
  const res = await h.post<{ data: { clId: number } }>('/api/v2/contactList/create', { ssid: t.ssid, name: unique('list-') });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  const clId = res.body.data.clId;
  if (numbers.length > 0) {
    const records = numbers.map((n) => (typeof n === 'string' ? { number: n } : n));
    const imp = await h.post<{ data: { rejected: unknown[] } }>('/api/v2/contactList/import', { ssid: t.ssid, clId, records });
    expect(imp.body.status, JSON.stringify(imp.body)).toBe('success');
    expect(imp.body.data.rejected).toEqual([]);
  }
  return clId;
}

export async function createCampaign(h: Harness, w: World, settings: Row = {}): Promise<number> {
  const res = await h.post<{ data: { campaignId: number } }>('/api/v2/campaign/create', {
    ssid: w.t.ssid,
    name: 'Test campaign',
    clIds: [w.clId],
    groupId: w.group,
    did: w.did,
    mode: 'progressive',
    callingHours: ALL_DAY,
    ...settings,
  });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data.campaignId;
}

export async function op(
  h: Harness,
  s: Session,
  name: string,
  body: Row = {},
): Promise<Row & { status: string; code: number; message?: string; data?: unknown }> {
  return (await h.post(`/api/v2/campaign/${name}`, { ssid: s.ssid, ...body })).body;
}

export async function started(h: Harness, w: World, settings: Row = {}): Promise<number> {
  const id = await createCampaign(h, w, settings);
  expect((await op(h, w.t, 'start', { campaignId: id })).status).toBe('success');
  return id;
}

/** One dialer tick on this node (the harness runs no dialer of its own: CAMPAIGN_DIALER=0). */
export async function tick(h: Harness): Promise<void> {
  await h.services.dialerWorker.tick();
}

/**
 * The campaign calls the switch was told to place since the last look: a
 * click-to-call placed after the tick is the marker (the stream is ordered),
 * so every command pushed before it has arrived.
 */
export async function dialled(h: Harness, w: World): Promise<Row[]> {
  const res = await h.post<{ data: { callId: string } }>('/api/v2/call/originate', { ssid: w.t.ssid, agentId: w.agents[0]!.agentId, customer: '919000000001' });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  const marker = res.body.data.callId;
  await w.stream.next((m) => m.event === 'call.originate' && m.data.callId === marker);
  const out = w.stream.messages
    .filter((m: SseMessage) => m.event === 'call.originate' && String(m.data.callId).startsWith('obd-') && !w.seen.has(String(m.data.callId)))
    .map((m) => m.data);
  for (const m of out) w.seen.add(String(m.callId));
  return out;
}

/** Ticks and answers the calls dialled. */
export async function tickAndRead(h: Harness, w: World): Promise<Row[]> {
  await tick(h);
  return dialled(h, w);
}

export async function status(h: Harness, w: World, campaignId: number): Promise<Row & { lines: number; state: string }> {
  const res = await op(h, w.t, 'status', { campaignId });
  expect(res.status, JSON.stringify(res)).toBe('success');
  return res.data as Row & { lines: number; state: string };
}

/** The switch's events of a customer who never answered. */
export async function noAnswer(h: Harness, w: World, callId: string, reason = 'no_answer'): Promise<void> {
  await ingestOk(h, w.t.ssid, [ev(h, 'call.dialing', { callId, direction: 'outbound' }), ev(h, 'call.ended', { callId, reason })]);
}

/** A predictive call a person answers and an agent takes. */
export async function answeredByAgent(h: Harness, w: World, call: Row, agentId: number): Promise<void> {
  const callId = String(call.callId);
  await ingestOk(h, w.t.ssid, [
    ev(h, 'call.dialing', { callId, campaignId: call.campaignId, caller: call.customer, did: call.did, direction: 'outbound' }),
    ev(h, 'call.connected', { callId, answeredBy: 'human' }),
    ev(h, 'call.queued', { callId, groupId: w.group, campaignId: call.campaignId, caller: call.customer, direction: 'outbound' }),
    ev(h, 'call.ringing', { callId, agentId }),
    ev(h, 'call.answered', { callId, agentId }),
  ]);
}

/** A progressive call: its reserved agent rings and answers first, then the customer answers. */
export async function progressiveAnswered(h: Harness, w: World, call: Row): Promise<void> {
  const callId = String(call.callId);
  const agentId = Number(call.agentId);
  await ingestOk(h, w.t.ssid, [
    ev(h, 'call.queued', { callId, groupId: w.group, campaignId: call.campaignId, caller: call.customer, direction: 'outbound' }),
    ev(h, 'call.ringing', { callId, agentId }),
    ev(h, 'call.answered', { callId, agentId }),
    ev(h, 'call.dialing', { callId, direction: 'outbound' }),
    ev(h, 'call.connected', { callId, answeredBy: 'human' }),
  ]);
}

export async function endCall(h: Harness, w: World, callId: string, reason = 'completed'): Promise<void> {
  await ingestOk(h, w.t.ssid, [ev(h, 'call.ended', { callId, reason })]);
}

/** A session of the agent (an agent principal). */
export function agentSession(h: Harness, a: { email: string; password: string }): Promise<Session> {
  return login(h, a.email, a.password);
}
