import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createClient, type CallCenterClient } from '../../client/index.js';
import { openSse, type SseReader } from '../helpers/sse.js';
import {
  dialects,
  expectAccessibleEverywhere,
  hasChromium,
  launch,
  LAPTOP,
  PHONE,
  serve,
  shotPath,
  signInByKeyboard,
  tabTo,
  until,
  type Served,
} from './app.fixtures.js';

type Ev = Record<string, unknown>;

/**
 * The agent desk (/agent) end to end in Chromium against the server process: the suite acts as
 * the switch (it reads `agent.state` on the stream with switch credentials and answers with the
 * agent's events), so the desk shows a break only once the switch reported it. A screen pop with
 * the caller's name from the directory; a narrow role without the dialler and the callbacks; the
 * keyboard alone; axe in both themes at both sizes.
 */
describe.skipIf(!hasChromium).each(dialects())('agent desk in a browser [%s]', (dialect) => {
  let s: Served;
  let browser: Browser;
  let page: Page;
  let switchApi: CallCenterClient;
  let sw: SseReader;
  const people: Record<string, { agentId: number; email: string }> = {};
  let seq = 0;
  const now = () => Date.now() / 1000;
  const ev = (type: string, fields: Ev): Ev => ({ eventId: `d${++seq}-${Math.random()}`, type, ts: now(), ...fields });
  const ingest = async (events: Ev[]) => {
    const res = await switchApi.call('events/ingest', { events: events as Array<{ eventId: string; type: string; ts: number }> });
    expect(res.data.errors, JSON.stringify(res.data.errors)).toEqual([]);
  };
  const state = () => page.locator('#desk-state');

  beforeAll(async () => {
    s = await serve(dialect);
    const { api } = s;
    await api.call('group/create', { groupId: 55, name: 'Support' });
    const desk = await api.call('role/create', { name: 'Desk', permissions: ['agent.live', 'directory.view', 'analysis.view', 'call.originate'] });
    const narrow = await api.call('role/create', { name: 'Narrow', permissions: ['agent.live'] });
    for (const [i, [name, role]] of (
      [
        ['Asha Rao', desk.data.roleId],
        ['Ben Okafor', narrow.data.roleId],
      ] as const
    ).entries()) {
      const email = `desk${i}@example.test`;
      const made = await api.call('Agent/create', {
        name,
        email,
        password: 'agent-password',
        phone: `9198100000${i}`,
        call_pass: `2345678${i}`,
        dest_type: 'MOBILE',
        dest_value: `9198100000${i}`,
        role,
        group: { '55': { receive_call: 'Y' } },
      });
      people[name.split(' ')[0]!] = { agentId: made.data.agentId, email };
    }
    await api.call('Directory/create', { contact: '+91 98111 00042', contactinfo: { name: 'Ravi Kumar', company: 'Kumar Traders' } });
    const token = await api.call('auth/token', { name: 'PBX', kind: 'switch' });
    switchApi = createClient({ baseUrl: s.server.baseUrl, credentials: { userId: token.userId, token: token.token } });
    sw = await openSse(`${s.server.baseUrl}/api/v2/stream?userId=${token.userId}&token=${token.token}`);
    await sw.next((m) => m.event === 'ready');
    browser = await launch();
    page = await browser.newPage({ viewport: LAPTOP });
  }, 120_000);

  afterAll(async () => {
    sw?.close();
    await browser?.close();
    await s?.stop();
  });

  it('signs in with the keyboard; a break is asked of the switch and shown only when the switch reports it', async () => {
    await page.goto(`${s.server.baseUrl}/agent`);
    await signInByKeyboard(page, people.Asha!.email, 'agent-password');
    await expect.poll(() => state().getAttribute('data-state'), until).toBe('offline');
    await expect.poll(() => state().textContent(), until).toBe('Logged out');
    // Keyboard only: the break reason, then "Go on break".
    await tabTo(page, '#break-reason');
    await page.keyboard.press('End'); // the last reason of the list…
    await page.selectOption('#break-reason', 'lunch'); // …then the one this test wants (a select keeps keyboard semantics)
    await tabTo(page, '#btn-break');
    await page.keyboard.press('Enter');
    const cmd = await sw.next((m) => m.event === 'agent.state');
    expect(cmd.data).toMatchObject({ agentId: people.Asha!.agentId, state: 'break', reason: 'lunch', groupIds: [55] });
    // The switch has not answered: the desk still shows its last report, and says it is waiting.
    await expect.poll(() => page.locator('#state-status').textContent(), until).toContain('Waiting for it to confirm');
    expect(await state().getAttribute('data-state')).toBe('offline');
    // The switch answers with the agent's events: now the desk shows the break.
    const agentId = people.Asha!.agentId;
    await ingest([ev('agent.login', { agentId, loginType: 'SIP' }), ev('agent.break.start', { agentId, reason: 'lunch' })]);
    await expect.poll(() => state().getAttribute('data-state'), until).toBe('break');
    expect(await state().textContent()).toBe('On break: lunch');
    await expect.poll(() => page.locator('#state-status').textContent(), until).toBe('');
    // Ready with the keyboard: asked, then reported.
    await tabTo(page, '#btn-ready');
    await page.keyboard.press('Enter');
    expect((await sw.next((m) => m.event === 'agent.state' && m.data.state === 'ready')).data).toMatchObject({ agentId, reason: null });
    await ingest([ev('agent.break.end', { agentId })]);
    await expect.poll(() => state().getAttribute('data-state'), until).toBe('available');
  });

  it('pops the caller’s contact, DNC status and last calls when a call rings, and dials a number', async () => {
    const agentId = people.Asha!.agentId;
    const callId = `pop-${dialect}-${Date.now()}`;
    await ingest([ev('call.queued', { callId, groupId: 55, caller: '919811100042', did: '18005550100' }), ev('call.ringing', { callId, agentId })]);
    const pop = page.locator('.screen-pop');
    await expect.poll(() => pop.getAttribute('data-call-state'), until).toBe('ringing');
    await expect.poll(() => page.locator('#pop-name').textContent(), until).toBe('Ravi Kumar');
    expect(await page.locator('#pop-dnc').textContent()).toBe('Not on the DNC list');
    await ingest([ev('call.answered', { callId, agentId })]);
    await expect.poll(() => pop.getAttribute('data-call-state'), until).toBe('connected');
    await expect.poll(() => state().getAttribute('data-state'), until).toBe('oncall');
    await expectAccessibleEverywhere(page, 'agent desk with a screen pop');
    await page.screenshot({ path: shotPath('agent-desk.png') });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: shotPath('agent-desk-phone.png'), fullPage: true });
    await page.setViewportSize(LAPTOP);
    await ingest([ev('call.ended', { callId, reason: 'completed' })]);
    await expect.poll(() => pop.getAttribute('data-call-state'), until).toBe('ended');
    // Click-to-call: a number that is none is refused next to the field; a good one reaches the switch.
    await page.getByRole('textbox', { name: 'Number' }).fill('12');
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await expect.poll(() => page.locator('[data-field="customer"] .field-error').textContent(), until).toContain('6 to 15 digits');
    await page.getByRole('textbox', { name: 'Number' }).fill('+91 98111 00077');
    await page.keyboard.press('Enter');
    expect((await sw.next((m) => m.event === 'call.originate')).data).toMatchObject({ agentId, customer: '919811100077' });
    await expect.poll(() => page.locator('#dial-status').textContent(), until).toContain('Calling +91 98111 00077');
  });

  it('a narrow role has no dialler and no callbacks, and the API refuses them anyway', async () => {
    const ctx = await browser.newContext({ viewport: PHONE });
    const p = await ctx.newPage();
    try {
      await p.goto(`${s.server.baseUrl}/agent`);
      await p.getByLabel('Username or agent e-mail').fill(people.Ben!.email);
      await p.getByLabel('Password').fill('agent-password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.locator('#desk-state').waitFor();
      expect(await p.locator('[data-panel]').evaluateAll((els) => els.map((e) => e.getAttribute('data-panel')))).toEqual(['state', 'call']);
      const ben = createClient({ baseUrl: s.server.baseUrl });
      await ben.login(people.Ben!.email, 'agent-password');
      await expect(ben.call('call/originate', { agentId: people.Ben!.agentId, customer: '919811100042' })).rejects.toMatchObject({ code: 1015 });
      await expect(ben.call('report/abandoned', { from: '01-01-2026', to: '01-02-2026' })).rejects.toMatchObject({ code: 1015 });
      // A client is sent to the console.
      await p.evaluate(() => sessionStorage.clear());
      await p.goto(`${s.server.baseUrl}/agent`);
      await p.getByLabel('Username or agent e-mail').fill('wallboard-admin');
      await p.getByLabel('Password').fill('wallboard-password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => p.getByRole('link', { name: 'console' }).count(), until).toBe(1);
      await expectAccessibleEverywhere(p, 'agent desk for a client');
    } finally {
      await ctx.close();
    }
  });
});
