import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { CallCenterClient } from '../../client/index.js';
import { ADMIN } from './server.js';
import { until } from './app.fixtures.js';

/*
 * What the console's page tests (reports, calls, directory, campaigns) share: calls reported the
 * way a switch reports them (events/ingest), a narrow agent, and signing in to /console.
 */

export type Ev = Record<string, unknown>;

/** A call of `secs` seconds queued at `t` (Unix seconds) in group 55: answered by `agentId` after 10 s, or abandoned after 40 s. */
export function callEvents(callId: string, t: number, caller: string, agentId: number | null, extra: Ev[] = []): Ev[] {
  const ev = (type: string, dt: number, fields: Ev): Ev => ({ eventId: `${callId}-${type}-${dt}`, type, ts: t + dt, ...fields });
  if (agentId === null)
    return [ev('call.queued', 0, { callId, groupId: 55, caller, did: '18005550100' }), ev('call.ended', 40, { callId, reason: 'abandoned' })];
  return [
    ev('call.queued', 0, { callId, groupId: 55, caller, did: '18005550100' }),
    ev('call.ringing', 2, { callId, agentId }),
    ev('call.answered', 10, { callId, agentId }),
    ...extra,
    ev('call.ended', 40, { callId, reason: 'completed' }),
  ];
}

export async function ingest(api: CallCenterClient, events: Ev[]): Promise<void> {
  const res = await api.call('events/ingest', { events: events as Array<{ eventId: string; type: string; ts: number }> });
  expect(res.data.errors, JSON.stringify(res.data.errors)).toEqual([]);
}

/** Group 55, a DID, a full agent and a narrow one (agent.live only); answers their ids. */
export async function seedPeople(api: CallCenterClient): Promise<{ asha: number; ben: number; benEmail: string }> {
  await api.call('group/create', { groupId: 55, name: 'Support' });
  await api.call('did/create', { did: '18005550100', name: 'Main line' });
  const narrow = await api.call('role/create', { name: 'Narrow', permissions: ['agent.live'] });
  const full = await api.call('role/create', { name: 'Desk', permissions: ['agent.live'] });
  const ids: number[] = [];
  for (const [i, [name, role]] of (
    [
      ['Asha Rao', full.data.roleId],
      ['Ben Okafor', narrow.data.roleId],
    ] as const
  ).entries()) {
    const made = await api.call('Agent/create', {
      name,
      email: `console${i}@example.test`,
      password: 'agent-password',
      phone: `9198200000${i}`,
      call_pass: `3456789${i}`,
      dest_type: 'MOBILE',
      dest_value: `9198200000${i}`,
      role,
      group: { '55': { receive_call: 'Y' } },
    });
    ids.push(made.data.agentId);
  }
  return { asha: ids[0]!, ben: ids[1]!, benEmail: 'console1@example.test' };
}

/** Signs in to /console with the form and waits for the page list. */
export async function signInConsole(page: Page, baseUrl: string, hash = '', username = ADMIN.username, password = ADMIN.password): Promise<void> {
  await page.goto(`${baseUrl}/console${hash}`);
  await page.getByLabel('Username or agent e-mail').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('nav.pages').waitFor();
}

/** The figures the page's chart was drawn with (data-chart), summed per series. */
export async function chartData(page: Page, scope = 'main'): Promise<{ x: number[]; totals: Record<string, number> }> {
  const raw = await page.locator(`${scope} [data-chart]`).first().getAttribute('data-chart', { timeout: until.timeout });
  const d = JSON.parse(raw ?? '{}') as { x: number[]; series: Array<{ label: string; values: Array<number | null> }> };
  return { x: d.x, totals: Object.fromEntries(d.series.map((s) => [s.label, s.values.reduce<number>((a, v) => a + (v ?? 0), 0)])) };
}
