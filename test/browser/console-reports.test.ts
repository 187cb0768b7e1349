import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createClient } from '../../client/index.js';
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
import { callEvents, chartData, ingest, seedPeople, signInConsole } from './console.fixtures.js';
import { ADMIN } from './server.js';

/**
 * The console's Reports page (/console#/reports) in Chromium against the server process on each
 * database: calls reported today and three days ago; the range and interval change what the chart
 * is drawn with and the table's rows, with the keyboard alone; the CSV download is the report's
 * rows; the callback worklist lists the abandoned caller; a narrow agent has no Reports page (and
 * the API refuses the report); axe on every report in both themes at both sizes.
 */
/** Presses Shift+Tab until `selector` has the focus (backwards from the page to the page list). */
async function shiftTabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return;
    await page.keyboard.press('Shift+Tab');
  }
  throw new Error(`Shift+Tab never reached ${selector}`);
}

describe.skipIf(!hasChromium).each(dialects())('console reports in a browser [%s]', (dialect) => {
  let s: Served;
  let browser: Browser;
  let page: Page;
  let ben = '';

  beforeAll(async () => {
    s = await serve(dialect);
    const people = await seedPeople(s.api);
    ben = people.benEmail;
    const now = Math.floor(Date.now() / 1000);
    // Today: one answered, one abandoned (both ended a moment ago); three days ago: one answered.
    const login = (t: number) => ({ eventId: `login-${t}`, type: 'agent.login', ts: t, agentId: people.asha, loginType: 'SIP' });
    const logout = (t: number) => ({ eventId: `logout-${t}`, type: 'agent.logout', ts: t, agentId: people.asha });
    await ingest(s.api, [login(now - 3 * 86400 - 100), ...callEvents('r-old', now - 3 * 86400 - 60, '919811100001', people.asha), logout(now - 3 * 86400)]);
    await ingest(s.api, [
      login(now - 200),
      ...callEvents('r-today', now - 120, '919811100002', people.asha),
      ...callEvents('r-gone', now - 60, '919811100003', null),
    ]);
    browser = await launch();
    page = await browser.newPage({ viewport: LAPTOP });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('with the keyboard alone: the range and the interval change the chart and the table', async () => {
    await page.goto(`${s.server.baseUrl}/console`);
    await signInByKeyboard(page, ADMIN.username, ADMIN.password);
    // The first page the role may open is shown with the focus on its heading; the page list is before it.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), until).toBe('page-title');
    await shiftTabTo(page, 'a[data-page="reports"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#queue-status').textContent(), until).toMatch(/rows$/);
    // Today by hour: two calls offered, one answered, one abandoned.
    await expect.poll(async () => (await chartData(page)).totals, until).toEqual({ Offered: 2, Answered: 1, Abandoned: 1 });
    expect((await chartData(page)).x.length).toBeGreaterThanOrEqual(24);
    // The last 7 days: the call of three days ago joins.
    await tabTo(page, '[data-preset="Last 7 days"]');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await chartData(page)).totals.Offered, until).toBe(3);
    // By day: seven points, and the table has the two days with calls.
    await tabTo(page, '#queue-range-interval');
    await page.selectOption('#queue-range-interval', 'day'); // a select keeps its keyboard semantics
    await tabTo(page, '#queue-range-show');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await chartData(page)).x.length, until).toBe(7);
    const rows = page.locator('[data-report="queue"] .table-wrap tbody tr[data-key]');
    await expect.poll(() => rows.count(), until).toBe(2);
    expect(await rows.first().textContent()).toContain('Support');
    await page.screenshot({ path: shotPath('console-reports.png') });
    await page.setViewportSize(PHONE);
    await expect.poll(async () => (await page.locator('[data-chart] canvas').boundingBox())?.width ?? 999, until).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: shotPath('console-reports-phone.png'), fullPage: true });
    await page.setViewportSize(LAPTOP);
  });

  it('downloads the report as CSV: the same rows as the API', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-csv="report/queue"]').click()]);
    expect(download.suggestedFilename()).toMatch(/^queue-report-.*\.csv$/);
    const csv = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(csv).toHaveLength(7);
    expect(csv.reduce((a, r) => a + Number(r.offered), 0)).toBe(3);
    expect(Object.keys(csv[0]!)).toEqual(expect.arrayContaining(['groupId', 'start', 'offered', 'serviceLevel.20']));
    await expect.poll(() => page.locator('#queue-csv-status').textContent(), until).toMatch(/Downloaded queue-report-.*: 7 rows\./);
    await expectAccessibleEverywhere(page, 'queue report');
  });

  it('the callback worklist, the agent, campaign and hits reports: each drawn, each accessible', async () => {
    await page.goto(`${s.server.baseUrl}/console#/reports/abandoned`);
    const worklist = page.locator('[data-report="abandoned"] .table-wrap tbody tr[data-key]');
    await expect.poll(() => worklist.count(), until).toBe(1);
    expect(await worklist.first().textContent()).toContain('919811100003');
    expect(await worklist.first().textContent()).toContain('Not yet');
    expect((await chartData(page)).totals).toEqual({ Abandoned: 1 });
    await expectAccessibleEverywhere(page, 'abandoned report');

    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await expect.poll(async () => (await chartData(page)).totals.Talk, until).toBeGreaterThan(0);
    await expect.poll(() => page.locator('[data-report="agent"] .table-wrap tbody tr[data-key]').count(), until).toBeGreaterThan(0);
    expect(await page.locator('[data-report="agent"] .table-wrap tbody').textContent()).toContain('Asha Rao');
    await expectAccessibleEverywhere(page, 'agent report');

    await page.getByRole('link', { name: 'Campaigns', exact: true }).last().click();
    await expect.poll(() => page.locator('#campaign-status').textContent(), until).toMatch(/rows$/);
    expect(await page.locator('[data-report="campaign"] .table-wrap tbody').textContent()).toContain('No dials in this range.');
    await expectAccessibleEverywhere(page, 'campaign report');

    await page.getByRole('link', { name: 'Hits', exact: true }).click();
    const hits = page.locator('[data-report="hits"] .table-wrap tbody tr[data-key]');
    await expect.poll(() => hits.count(), until).toBe(1);
    expect(await hits.first().textContent()).toContain('Support');
    // Today's answered call is the group's one hit; the abandoned call was offered to no one (docs/metrics.md).
    expect((await chartData(page)).totals).toEqual({ Offers: 1, 'Offers answered': 1, 'Offers missed': 0, Calls: 1 });
    await expectAccessibleEverywhere(page, 'hits report');
  });

  it('a narrow agent has none of these pages, and the API refuses the report anyway', async () => {
    const ctx = await browser.newContext({ viewport: PHONE });
    const p = await ctx.newPage();
    try {
      await signInConsole(p, s.server.baseUrl, '#/reports', ben, 'agent-password');
      await expect.poll(() => p.locator('main').textContent(), until).toContain('Your role does not include that page.');
      const pages = await p.locator('nav.pages a').evaluateAll((els) => els.map((e) => e.getAttribute('data-page')));
      for (const id of ['reports', 'calls', 'directory', 'campaigns']) expect(pages).not.toContain(id);
      const client = createClient({ baseUrl: s.server.baseUrl });
      await client.login(ben, 'agent-password');
      await expect(client.call('report/queue', { from: '01-01-2026', to: '01-02-2026', interval: 'day' })).rejects.toMatchObject({ code: 1015 });
      await expect(client.call('Directory/setDnc', { contact: '919811100009', dnc: -1 })).rejects.toMatchObject({ code: 1015 });
      await expect(client.call('campaign/create', { name: 'x', clIds: [1], groupId: 55, did: '18005550100', mode: 'preview' })).rejects.toMatchObject({
        code: 1015,
      });
    } finally {
      await ctx.close();
    }
  });
});
