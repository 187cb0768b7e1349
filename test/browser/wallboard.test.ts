import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createClient, type CallCenterClient } from '../../client/index.js';
import { blocking, describeViolations, runAxe } from './axe.js';
import { CHROMIUM, hasChromium, screenshotPath } from './chromium.js';
import { ADMIN, startServer, type RunningServer } from './server.js';

type Ev = Record<string, unknown>;
/** The board reacts within ~200 ms; generous for a loaded CI machine. */
const until = { timeout: 15_000, interval: 100 };

/**
 * End to end in headless Chromium: the real server process, the wallboard
 * page, a scripted event sequence posted to events/ingest appearing on the
 * board through the stream (no reload), a takeover from the board, and the
 * screenshot the README shows (docs/wallboard.png with UPDATE_SCREENSHOTS=1,
 * else a temporary folder).
 */
describe.skipIf(!hasChromium)('wallboard in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let api: CallCenterClient;
  const agents: Record<string, number> = {};
  let seq = 0;
  const now = () => Date.now() / 1000;
  const ev = (type: string, fields: Ev): Ev => ({ eventId: `e${++seq}`, type, ts: now(), ...fields });

  const ingest = async (events: Ev[]) => {
    const res = await api.call('events/ingest', { events: events as Array<{ eventId: string; type: string; ts: number }> });
    expect(res.data.errors, JSON.stringify(res.data.errors)).toEqual([]);
    expect(res.data.accepted).toBe(events.length);
  };
  const tile = (name: string) => page.locator(`.agent[data-agent-id="${agents[name]}"]`);
  const counter = (name: string) => page.locator(`[data-counter="${name}"]`);
  /** axe-core on the page as it is now: no serious or critical violation (nor a fixed moderate one). */
  const expectAccessible = async (where: string) => {
    const found = blocking(await runAxe(page));
    expect(found, `${where}:\n${describeViolations(found)}`).toEqual([]);
  };

  beforeAll(async () => {
    server = await startServer();
    api = createClient({ baseUrl: server.baseUrl });
    await api.login(ADMIN.username, ADMIN.password);
    await api.call('group/create', { groupId: 55, name: 'Support' });
    await api.call('group/create', { groupId: 56, name: 'Sales' });
    const role = await api.call('role/create', { name: 'Supervisor', permissions: ['agent.view', 'agent.live', 'queue.view', 'queue.takeover'] });
    const people: Array<[string, number]> = [
      ['Asha Rao', 55],
      ['Ben Okafor', 55],
      ['Chen Wei', 55],
      ['Dana Cruz', 55],
      ['Eli Novak', 55],
      ['Farah Haddad', 55],
      ['Gus Lind', 56],
    ];
    for (const [i, [name, group]] of people.entries()) {
      const made = await api.call('Agent/create', {
        name,
        email: `agent${i}@example.test`,
        password: 'agent-password',
        phone: `9198000000${i}`,
        call_pass: `1234567${i}`,
        dest_type: 'MOBILE',
        dest_value: `9198000000${i}`,
        role: role.data.roleId,
        group: { [String(group)]: { receive_call: 'Y' } },
      });
      agents[name.split(' ')[0]!] = made.data.agentId;
    }
    // Last week's history of Support: one call (120 s, answered by Asha) in each half hour around this time a week ago, so
    // staffing/plan forecasts 1 call ÷ 4 weeks = 0.25 for the half hour the board shows, which needs 1 agent.
    const weekAgo = now() - 7 * 86400;
    const past: Ev[] = [{ eventId: 'h-login', type: 'agent.login', ts: weekAgo - 3 * 3600, agentId: agents.Asha }];
    for (let k = -2; k <= 2; k++) {
      const q = weekAgo + k * 1800;
      const callId = `h${k + 2}`;
      past.push(
        { eventId: `${callId}-q`, type: 'call.queued', ts: q, callId, groupId: 55, caller: `91981110010${k + 2}` },
        { eventId: `${callId}-r`, type: 'call.ringing', ts: q, callId, agentId: agents.Asha },
        { eventId: `${callId}-a`, type: 'call.answered', ts: q, callId, agentId: agents.Asha },
        { eventId: `${callId}-e`, type: 'call.ended', ts: q + 120, callId, reason: 'completed' },
      );
    }
    past.push({ eventId: 'h-logout', type: 'agent.logout', ts: weekAgo + 3 * 3600, agentId: agents.Asha });
    await ingest(past);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in through the form (a wrong password is refused with a message)', async () => {
    await page.goto(`${server.baseUrl}/wallboard`);
    await page.locator('#login-view').waitFor({ state: 'visible' });
    await expectAccessible('sign-in form');
    await page.getByLabel('Username or agent e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#login-error').textContent(), until).toContain('Wrong username or password');
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.locator('#board-view').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), until).toBe('live');
    await expect.poll(() => tile('Asha').getAttribute('data-state'), until).toBe('offline');
    // Every tile "Logged out" (axe found that text at 2.96:1 before).
    await expectAccessible('board, everyone logged out');
    // The session id lives in sessionStorage only.
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
    expect(await page.evaluate(() => Object.keys(sessionStorage).some((k) => k.includes('session')))).toBe(true);
  });

  it('shows a scripted event sequence as it is ingested, without reloading the page', async () => {
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const a = agents;
    await ingest(['Asha', 'Ben', 'Chen', 'Dana', 'Eli', 'Farah', 'Gus'].map((n) => ev('agent.login', { agentId: a[n], loginType: 'Web' })));
    await expect.poll(() => tile('Asha').getAttribute('data-state'), until).toBe('available');

    await ingest([
      ev('agent.break.start', { agentId: a.Dana, reason: 'Lunch' }),
      ev('agent.wrapup.start', { agentId: a.Eli }),
      ev('call.queued', { callId: 'c0', groupId: 55, caller: '919811100000' }),
      ev('call.ended', { callId: 'c0', reason: 'abandoned' }),
      ev('call.queued', { callId: 'c1', groupId: 55, caller: '919811100001' }),
      ev('call.ringing', { callId: 'c1', agentId: a.Asha }),
      ev('call.answered', { callId: 'c1', agentId: a.Asha }),
      ev('call.queued', { callId: 'c2', groupId: 55, caller: '919811100002' }),
      ev('call.ringing', { callId: 'c2', agentId: a.Ben }),
      ev('call.queued', { callId: 'c3', groupId: 55, caller: '919811100003' }),
      ev('call.queued', { callId: 'c5', groupId: 55, caller: '919811100005' }),
      ev('call.ringing', { callId: 'c5', agentId: a.Farah }),
      ev('call.answered', { callId: 'c5', agentId: a.Farah }),
      ev('call.ended', { callId: 'c5', reason: 'completed' }),
    ]);
    await expect.poll(() => tile('Asha').getAttribute('data-state'), until).toBe('oncall');
    await expect.poll(() => tile('Ben').getAttribute('data-state'), until).toBe('ringing');
    await expect.poll(() => tile('Dana').getAttribute('data-state'), until).toBe('break');
    await expect.poll(() => tile('Eli').getAttribute('data-state'), until).toBe('wrapup');
    await expect.poll(() => tile('Dana').textContent(), until).toContain('Lunch');
    await expect.poll(() => tile('Asha').textContent(), until).toContain('919811100001');
    await expect.poll(() => tile('Farah').locator('.stats').textContent(), until).toContain('Today: 1 call');
    await expect.poll(() => counter('waiting').textContent(), until).toBe('1');
    await expect.poll(() => counter('abandoned').textContent(), until).toBe('1');
    await expect.poll(() => page.locator('#group-table tbody').textContent(), until).toContain('Support');
    // Per-group service level: 2 answered of 3 finished (c1, c5 answered; c0 abandoned).
    await expect.poll(() => page.locator('#group-table tbody tr', { hasText: 'Support' }).textContent(), until).toContain('67%');
    // Today (report/queue, the reports' definitions): c0 and c5 finished; c0 abandoned at once (a short abandon, out of the base),
    // c5 answered at once: offered 2, service level 1 of 1, no abandon counted, ASA 0 s.
    // Beside them the agents this half hour needs (staffing/plan: 1, from last week's history) and those logged in now (Agent/live's lA).
    const todayRow = (group: string) => page.locator('#today-table tbody tr', { hasText: group });
    await expect.poll(() => todayRow('Support').textContent(), until).toBe('Support2100%0%0 s16');
    expect(await todayRow('Support').locator('[data-figure="needed"]').textContent()).toBe('1');
    expect(await todayRow('Support').locator('[data-figure="logged-in"]').textContent()).toBe('6');
    // Sales has no history: no agent needed; Gus is logged in.
    expect(await todayRow('Sales').locator('[data-figure="needed"]').textContent()).toBe('0');
    expect(await todayRow('Sales').locator('[data-figure="logged-in"]').textContent()).toBe('1');
    expect(await page.locator('#chart rect').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    // Ringing, on call, wrap-up, available and break at once, in the desk layout of a 1600 × 1000 window.
    expect(await page.evaluate(() => document.documentElement.dataset.layout)).toBe('desk');
    await expectAccessible('board with agents in every state');
  });

  it('takes over a live call from the board, keyboard only', async () => {
    const takeOver = tile('Asha').getByRole('button', { name: 'Take over the call of Asha Rao' });
    await takeOver.focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('#takeover-dialog');
    await dialog.waitFor({ state: 'visible' });
    await expectAccessible('takeover dialog');
    await page.getByLabel('Agent who takes the call').selectOption(String(agents.Chen));
    await page.getByRole('button', { name: 'Take over', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => tile('Chen').getAttribute('data-state'), until).toBe('oncall');
    await expect.poll(() => tile('Asha').getAttribute('data-state'), until).toBe('wrapup');
    await expect.poll(() => page.locator('#toast').textContent(), until).toMatch(/Chen Wei|taken over|moved/);
    await expect.poll(() => tile('Chen').textContent(), until).toContain('919811100001');
  });

  it('reconnects by itself after a server restart and shows what happened meanwhile', async () => {
    await server.halt();
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), until).not.toBe('live');
    await server.restart();
    await ingest([ev('agent.break.start', { agentId: agents.Farah, reason: 'Training' })]);
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), { ...until, timeout: 30_000 }).toBe('live');
    await expect.poll(() => tile('Farah').getAttribute('data-state'), until).toBe('break');
    await expect.poll(() => tile('Farah').textContent(), until).toContain('Training');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
  });

  it('reloads everything after a database restore: the stream answers its Last-Event-ID with reset', async () => {
    // A backup of the database as it is now (Farah on a break, groups 55 and 56).
    const backup = mkdtempSync(join(tmpdir(), 'cc-backup-'));
    const dbFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('callcenter.db'));
    await server.halt();
    for (const f of dbFiles(server.dataDir)) copyFileSync(join(server.dataDir, f), join(backup, f));
    await server.restart();
    // After the backup: a group the board lists once it reloads, and a change it sees (its Last-Event-ID moves past the backup's).
    await api.call('group/create', { groupId: 57, name: 'Billing' });
    await page.reload();
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), { ...until, timeout: 30_000 }).toBe('live');
    await expect.poll(() => page.locator('#group-select option[value="57"]').count(), until).toBe(1);
    await ingest([ev('agent.break.end', { agentId: agents.Farah })]);
    await expect.poll(() => tile('Farah').getAttribute('data-state'), until).toBe('available');
    // Restore the backup: the sequence goes back, so the board's Last-Event-ID is one the server never issued.
    await server.halt();
    for (const f of dbFiles(server.dataDir)) rmSync(join(server.dataDir, f));
    for (const f of dbFiles(backup)) copyFileSync(join(backup, f), join(server.dataDir, f));
    rmSync(backup, { recursive: true, force: true });
    await server.restart();
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), { ...until, timeout: 30_000 }).toBe('live');
    await expect.poll(() => tile('Farah').getAttribute('data-state'), until).toBe('break');
    // Only a full reload forgets the group the restored database does not have.
    await expect.poll(() => page.locator('#group-select option[value="57"]').count(), until).toBe(0);
    expect(await page.locator('#group-select option').allTextContents()).toEqual(['All groups', 'Support (55)', 'Sales (56)']);
  });

  it('moves focus with the keyboard shortcuts and filters by group', async () => {
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('g');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('group-select');
    await page.selectOption('#group-select', '56');
    await expect.poll(() => page.locator('.agent').count(), until).toBe(1);
    await expect.poll(() => tile('Gus').count(), until).toBe(1);
    await page.selectOption('#group-select', '55');
    await expect.poll(() => page.locator('.agent').count(), until).toBe(6);
  });

  it('saves the screenshot the README shows', async () => {
    await page.selectOption('#group-select', '');
    await expect.poll(() => page.locator('.agent').count(), until).toBe(7);
    await page.keyboard.press('Escape');
    await page.locator('#toast').evaluate((t) => ((t as HTMLElement).hidden = true));
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const shot = screenshotPath('wallboard.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);
  });

  it('signs out: back to the form, the session ended on the server and gone from the tab', async () => {
    const ssid = await page.evaluate(() => JSON.parse(sessionStorage.getItem('callcenter.wallboard.session') ?? '{}').ssid as string);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#login-view').waitFor({ state: 'visible' });
    expect(await page.evaluate(() => sessionStorage.getItem('callcenter.wallboard.session'))).toBeNull();
    const stale = createClient({ baseUrl: server.baseUrl, credentials: { ssid } });
    await expect(stale.call('queue/count', {})).rejects.toMatchObject({ code: 1014 });
  });

  it('lets an agent with a supervisor role sign in by e-mail', async () => {
    await page.getByLabel('Username or agent e-mail').fill('agent6@example.test');
    await page.getByLabel('Password').fill('agent-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#board-view').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), until).toBe('live');
    await expect.poll(() => tile('Chen').getAttribute('data-state'), until).toBe('oncall');
    await expect.poll(() => counter('waiting').textContent(), until).toBe('1');
  });
});
