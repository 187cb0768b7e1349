import { createAgent, createGroup, uniquePhone } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import type { Harness } from '../helpers/harness.js';
import { ev, ingestOk } from './events.fixtures.js';

/** 2026-11-24 16:00:00 UTC = 21:30:00 in Asia/Kolkata (+05:30), the tenant's zone. */
export const T0 = Date.UTC(2026, 10, 24, 16, 0, 0) / 1000;

export type Scripted = Awaited<ReturnType<typeof scriptCalls>>;

/**
 * Calls of every shape, scripted through events/ingest (and one takeover):
 * c1 missed by a1, answered by a2 with a hold and a recording, taken over by
 * sup who holds too, completed, then a recording reported after the end;
 * c2 outbound, ended before any offer; c3 failed while ringing; c4 missed by
 * all, its offer's end reported late (after call.ended).
 */
export async function scriptCalls(h: Harness) {
  h.clock.set((T0 - 120) * 1000);
  const t = await createTenant(h, { timezone: 'Asia/Kolkata' });
  const g = await createGroup(h, t);
  const phones = { a1: uniquePhone(), a2: uniquePhone(), sup: uniquePhone() };
  const a1 = await createAgent(h, t, { group: g, phone: phones.a1, dest_value: phones.a1 });
  const a2 = await createAgent(h, t, { group: g, phone: phones.a2, dest_value: phones.a2 });
  const sup = await createAgent(h, t, { group: g, phone: phones.sup, dest_value: phones.sup });
  // Each tenant's recorder writes under its own directory: a path belongs to the account that reports it first.
  const rec = { main: `a${t.accountId}/2026/11/24/c1.wav`, late: `a${t.accountId}/late/c1-mix.wav` };
  const at = (secs: number, type: string, fields: Record<string, unknown> = {}) => ev(h, type, { ts: T0 + secs, ...fields });
  await ingestOk(h, t.ssid, [
    at(-60, 'agent.login', { agentId: a1.agentId }),
    at(-60, 'agent.login', { agentId: a2.agentId }),
    at(-60, 'agent.login', { agentId: sup.agentId }),
    at(0, 'call.queued', { callId: 'c1', groupId: g, did: '18005550100', caller: '+91 98000 00003', retryOf: 'c-0' }),
    at(5, 'call.ringing', { callId: 'c1', agentId: a1.agentId }),
    at(15, 'call.missed', { callId: 'c1', agentId: a1.agentId }),
    at(15, 'call.ringing', { callId: 'c1', agentId: a2.agentId }),
    at(20, 'call.answered', { callId: 'c1', agentId: a2.agentId }),
    at(30, 'call.hold', { callId: 'c1' }),
    at(42, 'call.unhold', { callId: 'c1' }),
    at(50, 'call.recording', { callId: 'c1', agentId: a2.agentId, path: rec.main }),
  ]);
  h.clock.set((T0 + 80) * 1000);
  const tk = await h.post('/api/v2/queue/callTakeover', { ssid: t.ssid, callId: 'c1', agentid: sup.agentId });
  if (tk.body.status !== 'success') throw new Error(JSON.stringify(tk.body));
  await ingestOk(h, t.ssid, [
    at(90, 'call.hold', { callId: 'c1' }),
    at(93, 'call.unhold', { callId: 'c1' }),
    at(100, 'call.ended', { callId: 'c1', reason: 'completed' }),
    at(130, 'call.recording', { callId: 'c1', path: rec.late }),
    at(200, 'call.queued', { callId: 'c2', direction: 'outbound', campaignId: '42', caller: '5550002' }),
    at(207, 'call.ended', { callId: 'c2' }),
    at(300, 'call.queued', { callId: 'c3', groupId: g, did: '18005550100', caller: '5550003' }),
    at(301, 'call.ringing', { callId: 'c3', agentId: a1.agentId }),
    at(304, 'call.ended', { callId: 'c3', reason: 'failed' }),
    at(400, 'call.queued', { callId: 'c4', groupId: g, caller: '5550004' }),
    at(401, 'call.ringing', { callId: 'c4', agentId: a1.agentId }),
    at(411, 'call.ended', { callId: 'c4', reason: 'abandoned' }),
  ]);
  // The offer's end arrives after the call's: the ring shrinks from 10 s to 6 s.
  await ingestOk(h, t.ssid, [at(407, 'call.missed', { callId: 'c4', agentId: a1.agentId })]);
  return { t, g, a1, a2, sup, phones, rec };
}
