import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import type { Harness } from '../helpers/harness.js';
import { deliverDue, type Receiver } from '../helpers/webhook-receiver.js';
import { ev, ingestOk } from './events.fixtures.js';
import { createHook } from './webhooks.fixtures.js';

/** 2026-11-20 04:30 UTC = 10:00 in Asia/Kolkata, the tenant's zone. */
export const T0 = Date.UTC(2026, 10, 20, 4, 30, 0) / 1000;
/** The number to forget, as a person would give it, and its digits. */
export const GIVEN = '+91 98765 11111';
export const NUMBER = '919876511111';
/** How the number may be written in any answer (digits, national, grouped, international). */
export const FORMATS = ['9876511111', '98765 11111', '98765-11111', '+91 98765', '98765'];
export const OTHER = '919800022222';

export function recordingsDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'callcenter-privacy-'));
}

async function ok<T = Record<string, unknown>>(h: Harness, op: string, body: Record<string, unknown>) {
  const res = await h.post<T>(`/api/v2/${op}`, body);
  expect(res.body.status, `${op}: ${JSON.stringify(res.body)}`).toBe('success');
  return res.body;
}

/**
 * Everything that can be stored about NUMBER in one account: a directory
 * entry, DNC, a sticky agent, a blacklisted DID; two finished calls (one
 * answered and recorded, one abandoned) and a live one; webhook deliveries
 * sent (the receiver echoes the number back); and another caller's call.
 */
export async function storeEverything(h: Harness, receiver: Receiver) {
  h.clock.set((T0 - 300) * 1000);
  const t = await createTenant(h, { timezone: 'Asia/Kolkata' });
  const g = await createGroup(h, t);
  const did = await createDid(h, t);
  const a1 = await createAgent(h, t, { group: g });
  const a2 = await createAgent(h, t, { group: g });
  const hook = await createHook(h, t, { url: receiver.url, name: 'CRM' });
  expect(hook.status).toBe('active');
  await ok(h, 'Directory/create', { ssid: t.ssid, contact: GIVEN, contactinfo: { name: 'Meera Iyer', email: 'meera@example.com' } });
  await ok(h, 'Directory/setDnc', { ssid: t.ssid, contact: NUMBER, dnc: -1 });
  await ok(h, 'Directory/setSticky', { ssid: t.ssid, contact: NUMBER, agentId: a1.agentId, type: 'all', expiry: -1 });
  await ok(h, 'Directory/Blacklist', { ssid: t.ssid, contact: NUMBER, DID: [did] });
  // An outbound campaign's list holding the number (and another), and a campaign on it.
  const list = await ok<{ data: { clId: number } }>(h, 'contactList/create', { ssid: t.ssid, name: 'Renewals' });
  const clId = list.data.clId;
  for (const [number, name] of [
    [GIVEN, 'Meera Iyer'],
    [OTHER, 'Ravi K'],
  ]) {
    await ok(h, 'AddContactApi/addContact', { ssid: t.ssid, clId, action: 0, record: { number, name, timezone: 'Asia/Kolkata', fields: { plan: 'gold' } } });
  }
  const campaign = await ok<{ data: { campaignId: number } }>(h, 'campaign/create', {
    ssid: t.ssid,
    name: 'Renewals',
    clIds: [clId],
    groupId: g,
    did,
    mode: 'preview',
  });
  const rec = `a${t.accountId}/2026/11/20/c1.wav`;
  fs.mkdirSync(path.join(h.ctx.config.recordingsDir, path.dirname(rec)), { recursive: true });
  fs.writeFileSync(path.join(h.ctx.config.recordingsDir, rec), 'RIFF....WAVE');
  const at = (secs: number, type: string, fields: Record<string, unknown> = {}) => ev(h, type, { ts: T0 + secs, ...fields });
  await ingestOk(h, t.ssid, [
    at(-60, 'agent.login', { agentId: a1.agentId }),
    at(-60, 'agent.login', { agentId: a2.agentId }),
    at(0, 'call.queued', { callId: 'c1', groupId: g, did, caller: GIVEN }),
    at(5, 'call.ringing', { callId: 'c1', agentId: a1.agentId }),
    at(10, 'call.answered', { callId: 'c1', agentId: a1.agentId }),
    at(20, 'call.recording', { callId: 'c1', agentId: a1.agentId, path: rec }),
    at(70, 'call.ended', { callId: 'c1', reason: 'completed' }),
    at(100, 'call.queued', { callId: 'c2', groupId: g, did, caller: NUMBER, retryOf: 'c1' }),
    at(101, 'call.ringing', { callId: 'c2', agentId: a2.agentId }),
    at(121, 'call.missed', { callId: 'c2', agentId: a2.agentId }),
    at(140, 'call.ended', { callId: 'c2', reason: 'abandoned' }),
    at(200, 'call.queued', { callId: 'c3', groupId: g, did, caller: OTHER }),
    at(202, 'call.ringing', { callId: 'c3', agentId: a2.agentId }),
    at(204, 'call.answered', { callId: 'c3', agentId: a2.agentId }),
    at(260, 'call.ended', { callId: 'c3', reason: 'completed' }),
    at(300, 'call.queued', { callId: 'c4', groupId: g, did, caller: NUMBER }),
  ]);
  h.clock.set((T0 + 310) * 1000);
  receiver.script.push({ status: 200, body: `{"received":"${NUMBER}"}` }, { status: 200, body: `{"received":"${NUMBER}"}` });
  await deliverDue(h);
  return { t, g, did, a1, a2, rec, webhookId: hook.webhookId, clId, campaignId: campaign.data.campaignId };
}
