import { expect } from 'vitest';
import { processLogin, TEST_ADMIN, type ServerProcess } from './process.js';

/*
 * A campaign's world on a real server process (the SIGKILL and two-node
 * dialer tests, the simulate --outbound command): a tenant with a DID, a
 * group, agents logged in, a contact list and a progressive campaign, all
 * through the public API.
 */

const nowSec = () => Math.floor(Date.now() / 1000);
/** Calling hours that hold at any time of day. */
const ALL_DAY = { start: '00:00', end: '23:59', weekDays: [1, 2, 3, 4, 5, 6, 7] };

export async function ok(p: ServerProcess, path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await p.post(path, body);
  expect(res.body?.status, `${path} ${res.raw}`).toBe('success');
  return res.body!;
}

export interface CampaignWorld {
  accountId: number;
  ssid: string;
  switchCreds: { userId: string; token: string };
  numbers: string[];
  campaignId: number;
}

/** A tenant with a DID, a group, agents logged in, a list of `contacts` numbers and a campaign on it (not started), and a switch token. */
export async function campaignWorld(
  p: ServerProcess,
  name: string,
  opts: { agents: number; contacts: number; dialRatio: number; mode?: 'progressive' | 'predictive'; maxAttempts?: number },
): Promise<CampaignWorld> {
  const op = await processLogin(p, TEST_ADMIN.username, TEST_ADMIN.password);
  const created = await ok(p, '/api/v2/account/create', { ssid: op, username: name, password: 'tenant-password', name });
  const accountId = Number((created.data as { userId: string }).userId);
  const ssid = await processLogin(p, name, 'tenant-password');
  const did = String(((await ok(p, '/api/v2/did/create', { ssid, did: `80${String(accountId).padStart(10, '7')}` })).data as { did: string }).did);
  const groupId = ((await ok(p, '/api/v2/group/create', { ssid, name: 'Outbound' })).data as { groupId: number }).groupId;
  const role = ((await ok(p, '/api/v2/role/create', { ssid, name: 'Agent', permissions: ['agent.view', 'queue.view'] })).data as { roleId: number }).roleId;
  const agentIds: number[] = [];
  for (let i = 0; i < opts.agents; i++) {
    const phone = `9${String(accountId).padStart(4, '0')}${String(i).padStart(5, '0')}`;
    const a = await ok(p, '/api/v2/Agent/create', {
      ssid,
      name: `Agent ${i}`,
      email: `${name}-agent-${i}@example.com`,
      password: 'agent-password',
      phone,
      call_pass: '12345678',
      dest_type: 'MOBILE',
      dest_value: phone,
      role,
      group: { [String(groupId)]: { receive_call: 'Y' } },
    });
    agentIds.push((a.data as { agentId: number }).agentId);
  }
  await ok(p, '/api/v2/events/ingest', {
    ssid,
    events: agentIds.map((agentId) => ({ eventId: `${name}-login-${agentId}`, type: 'agent.login', ts: nowSec(), agentId })),
  });
  const clId = ((await ok(p, '/api/v2/contactList/create', { ssid, name: 'Crash list' })).data as { clId: number }).clId;
  const numbers = Array.from({ length: opts.contacts }, (_, i) => String(919_811_000_000 + accountId * 10_000 + i));
  const imp = await ok(p, '/api/v2/contactList/import', { ssid, clId, records: numbers.map((number) => ({ number })) });
  expect((imp.data as { rejected: unknown[] }).rejected).toEqual([]);
  const campaignId = (
    (
      await ok(p, '/api/v2/campaign/create', {
        ssid,
        name: 'Crash campaign',
        clIds: [clId],
        groupId,
        did,
        mode: opts.mode ?? 'progressive',
        dialRatio: opts.dialRatio,
        maxAttempts: opts.maxAttempts ?? 1,
        callingHours: ALL_DAY,
      })
    ).data as { campaignId: number }
  ).campaignId;
  const sw = await ok(p, '/api/v2/auth/token', { ssid, kind: 'switch' });
  return { accountId, ssid, switchCreds: { userId: String(sw.userId), token: String(sw.token) }, numbers, campaignId };
}
