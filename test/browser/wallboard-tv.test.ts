import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createClient, type CallCenterClient } from '../../client/index.js';
import { blocking, describeViolations, runAxe } from './axe.js';
import { CHROMIUM, hasChromium, screenshotPath } from './chromium.js';
import { ADMIN, startServer, type RunningServer } from './server.js';

const until = { timeout: 15_000, interval: 100 };
const AGENTS = 50;
const FIRST = ['Asha', 'Ben', 'Chen', 'Dana', 'Eli', 'Farah', 'Gus', 'Hana', 'Ivo', 'Jorge'];
const LAST = ['Rao', 'Okafor', 'Wei', 'Cruz', 'Novak', 'Haddad', 'Lindqvist', 'Moreau', 'Petrov', 'Santos'];

type Ev = Record<string, unknown>;

/**
 * The TV layout in headless Chromium at 1920 × 1080: a 50-agent group with
 * agents in every state fits on one screen with the counters (no scrolling,
 * every tile and counter inside the viewport), the type stays large, axe
 * finds nothing serious, and the screenshot is saved (docs/wallboard-tv.png
 * with UPDATE_SCREENSHOTS=1, else a temporary folder).
 */
describe.skipIf(!hasChromium)('wallboard TV layout (1920 × 1080, 50 agents)', () => {
  let server: RunningServer;
  let browser: Browser;
  let api: CallCenterClient;
  const ids: number[] = [];
  let seq = 0;
  const ev = (type: string, fields: Ev): Ev => ({ eventId: `tv${++seq}`, type, ts: Date.now() / 1000, ...fields });

  const ingest = async (events: Ev[]) => {
    const res = await api.call('events/ingest', { events: events as Array<{ eventId: string; type: string; ts: number }> });
    expect(res.data.errors, JSON.stringify(res.data.errors)).toEqual([]);
  };

  const openBoard = async (query: string, viewport = { width: 1920, height: 1080 }): Promise<Page> => {
    const page = await browser.newPage({ viewport });
    await page.goto(`${server.baseUrl}/wallboard${query}`);
    await page.getByLabel('Username or agent e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#board-view').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), until).toBe('live');
    await expect.poll(() => page.locator('.agent').count(), until).toBe(AGENTS);
    return page;
  };

  beforeAll(async () => {
    server = await startServer();
    api = createClient({ baseUrl: server.baseUrl });
    await api.login(ADMIN.username, ADMIN.password);
    await api.call('group/create', { groupId: 55, name: 'Support' });
    const role = await api.call('role/create', { name: 'Agent', permissions: ['agent.view'] });
    for (let i = 0; i < AGENTS; i++) {
      const made = await api.call('Agent/create', {
        name: `${FIRST[i % 10]} ${LAST[Math.floor(i / 10) * 2 + (i % 2)]}`,
        email: `tv${i}@example.test`,
        password: 'agent-password',
        phone: `91980000${String(i).padStart(4, '0')}`,
        call_pass: `1234${String(i).padStart(4, '0')}`,
        dest_type: 'MOBILE',
        dest_value: `91980000${String(i).padStart(4, '0')}`,
        role: role.data.roleId,
        group: { '55': { receive_call: 'Y' } },
      });
      ids.push(made.data.agentId);
    }
    // 45 logged in (5 stay logged out): 12 on a call, 3 ringing, 5 in wrap-up, 6 on a break, the rest available.
    await ingest(ids.slice(0, 45).map((agentId) => ev('agent.login', { agentId, loginType: 'Web' })));
    const calls: Ev[] = [];
    for (let i = 0; i < 15; i++) {
      const callId = `tv-c${i}`;
      calls.push(ev('call.queued', { callId, groupId: 55, caller: `9198111${String(i).padStart(5, '0')}` }));
      calls.push(ev('call.ringing', { callId, agentId: ids[i] }));
      if (i < 12) calls.push(ev('call.answered', { callId, agentId: ids[i] }));
    }
    for (let i = 15; i < 20; i++) calls.push(ev('agent.wrapup.start', { agentId: ids[i] }));
    for (let i = 20; i < 26; i++) calls.push(ev('agent.break.start', { agentId: ids[i], reason: i % 2 ? 'Lunch' : 'Training' }));
    calls.push(ev('call.queued', { callId: 'tv-w1', groupId: 55, caller: '919811199991' }));
    calls.push(ev('call.queued', { callId: 'tv-a1', groupId: 55, caller: '919811199992' }), ev('call.ended', { callId: 'tv-a1', reason: 'abandoned' }));
    await ingest(calls);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'] });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('?tv=1 fits all 50 agents and the counters on one 1080p screen, in type read across a room', async () => {
    const page = await openBoard('?tv=1');
    await expect.poll(() => page.locator('.agent[data-state="oncall"]').count(), until).toBe(12);
    expect(await page.evaluate(() => document.documentElement.dataset.layout)).toBe('tv');
    const fit = await page.evaluate(() => {
      const inside = (e: Element) => {
        const r = e.getBoundingClientRect();
        return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5 && r.width > 0;
      };
      const px = (sel: string) => Math.min(...[...document.querySelectorAll(sel)].map((e) => parseFloat(getComputedStyle(e).fontSize)));
      const textPx = Math.min(...[...document.querySelectorAll('.chart svg text')].map((t) => t.getBoundingClientRect().height));
      return {
        scroll: [document.documentElement.scrollHeight, document.documentElement.scrollWidth],
        tilesOutside: [...document.querySelectorAll('.agent')].filter((e) => !inside(e)).length,
        countersOutside: [...document.querySelectorAll('.counter')].filter((e) => !inside(e)).length,
        counters: document.querySelectorAll('.counter').length,
        // Lines cut off by their tile (every line must lie inside it) or wrapped onto a second line.
        clipped: [...document.querySelectorAll('.agent')].filter((tile) => {
          const t = tile.getBoundingClientRect();
          const shown = [...tile.children].filter((line) => line.getClientRects().length > 0);
          return shown.some((line) => {
            const r = line.getBoundingClientRect();
            const oneLine = r.height <= parseFloat(getComputedStyle(line).fontSize) * 1.6;
            return r.top < t.top - 0.5 || r.bottom > t.bottom + 0.5 || !oneLine;
          });
        }).length,
        tableFits: (() => {
          const wrap = document.querySelector('.table-wrap')!;
          return wrap.scrollWidth <= wrap.clientWidth;
        })(),
        name: px('.agent .name'),
        state: px('.agent .state'),
        detail: px('.agent .detail, .agent .stats'),
        counter: px('.counter dd'),
        counterLabel: px('.counter dt'),
        chartText: textPx,
        chartVisible: inside(document.querySelector('.chart')!),
      };
    });
    expect(fit.scroll).toEqual([1080, 1920]);
    expect(fit.counters).toBe(8);
    expect(fit.tilesOutside).toBe(0);
    expect(fit.countersOutside).toBe(0);
    expect(fit.clipped).toBe(0);
    expect(fit.tableFits).toBe(true);
    expect(fit.chartVisible).toBe(true);
    // Minimum sizes in CSS px on a 1920 × 1080 screen (about 0.63 mm a pixel on a 55-inch TV).
    expect(fit.name).toBeGreaterThanOrEqual(18);
    expect(fit.state).toBeGreaterThanOrEqual(18);
    expect(fit.detail).toBeGreaterThanOrEqual(14);
    expect(fit.counter).toBeGreaterThanOrEqual(44);
    expect(fit.counterLabel).toBeGreaterThanOrEqual(16);
    expect(fit.chartText).toBeGreaterThanOrEqual(14);

    const serious = blocking(await runAxe(page));
    expect(serious, describeViolations(serious)).toEqual([]);

    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.screenshot({ path: screenshotPath('wallboard-tv.png') });
    await page.close();
  });

  it('turns the TV layout on by itself on a full 1080p screen, off in a smaller window and with ?tv=0', async () => {
    const page = await openBoard('');
    expect(await page.evaluate(() => document.documentElement.dataset.layout)).toBe('tv');
    await page.setViewportSize({ width: 1600, height: 900 });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.layout), until).toBe('desk');
    // The chart is drawn again at its new size (labels keep their pixel size, not stretched).
    await expect
      .poll(
        () =>
          page.evaluate(
            () =>
              document.querySelector('.chart svg')!.getAttribute('viewBox') ===
              `0 0 ${document.getElementById('chart')!.clientWidth} ${document.getElementById('chart')!.clientHeight}`,
          ),
        until,
      )
      .toBe(true);
    // The desk layout scrolls to show every agent, and passes axe as well.
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(900);
    const serious = blocking(await runAxe(page));
    expect(serious, describeViolations(serious)).toEqual([]);
    await page.close();
    const forcedOff = await openBoard('?tv=0');
    expect(await forcedOff.evaluate(() => document.documentElement.dataset.layout)).toBe('desk');
    await forcedOff.close();
  });
});
