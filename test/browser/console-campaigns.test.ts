import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { dialects, expectAccessibleEverywhere, hasChromium, launch, LAPTOP, serve, shotPath, until, type Served } from './app.fixtures.js';
import { seedPeople, signInConsole } from './console.fixtures.js';

/**
 * The console's Campaigns page (/console#/campaigns) in Chromium against the server process on each
 * database: a contact list created, a small CSV imported into it (one bad row rejected alone) and
 * its count shown; a campaign created on it, started (its live status, polled, says running) and
 * paused; axe on the page.
 */
describe.skipIf(!hasChromium).each(dialects())('console campaigns in a browser [%s]', (dialect) => {
  let s: Served;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    s = await serve(dialect);
    await seedPeople(s.api);
    browser = await launch();
    page = await browser.newPage({ viewport: LAPTOP });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('creates a list and imports a CSV file into it, with the count shown', async () => {
    await signInConsole(page, s.server.baseUrl, '#/campaigns');
    await page.getByRole('textbox', { name: 'Name' }).first().fill('Renewals');
    await page.getByRole('button', { name: 'Create list' }).click();
    const lists = page.locator('table:has(caption:text("Contact lists")) tbody tr[data-key]');
    await expect.poll(() => lists.count(), until).toBe(1);
    const csv = 'number,name,plan\r\n+1 415 555 0134,Ada Lovelace,gold\r\n12,Too short,silver\r\n14155550135,Alan Turing,gold\r\n';
    await page.locator('#import-file').setInputFiles({ name: 'renewals.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.locator('#import-status').textContent(), until).toBe('Imported 3 rows: 2 added, 0 updated, 1 rejected.');
    expect(await page.getByRole('list', { name: 'Rejected rows' }).textContent()).toContain('Line 3');
    await expect.poll(() => lists.first().locator('[data-contacts]').getAttribute('data-contacts'), until).toBe('2');
    const [list] = (await s.api.call('contactList/list', {})).data;
    expect(list).toMatchObject({ name: 'Renewals', contacts: 2 });
  });

  it('creates a campaign, starts it and sees its live status, then pauses it', async () => {
    const form = page.locator('#new-campaign');
    await form.getByRole('textbox', { name: 'Name' }).fill('Renewals November');
    await form.getByLabel('Group taking the calls').selectOption('55');
    await form.getByLabel('Caller id (DID)').selectOption('18005550100');
    await form.getByLabel('Mode').selectOption('preview');
    await form.getByRole('checkbox', { name: 'Renewals (2)' }).check();
    await form.getByRole('button', { name: 'Create campaign' }).click();
    const row = page.locator('table:has(caption:text-is("Campaigns")) tbody tr[data-key]');
    await expect.poll(() => row.count(), until).toBe(1);
    expect(await row.locator('.state-badge').textContent()).toBe('Draft');
    await row.getByRole('button', { name: /^Live status/ }).click();
    await expect.poll(() => page.locator('#live-state').getAttribute('data-state'), until).toBe('draft');
    await row.getByRole('button', { name: 'Start Renewals November' }).click();
    await expect.poll(() => row.locator('.state-badge').getAttribute('data-state'), until).toBe('running');
    await expect.poll(() => page.locator('#live-state').getAttribute('data-state'), until).toBe('running');
    await expect.poll(() => page.locator('#live-dialable').textContent(), until).toBe('2');
    await page.screenshot({ path: shotPath('console-campaigns.png'), fullPage: true });
    await expectAccessibleEverywhere(page, 'campaigns');
    await row.getByRole('button', { name: 'Pause Renewals November' }).click();
    await expect.poll(() => page.locator('#live-state').getAttribute('data-state'), until).toBe('paused');
    expect((await s.api.call('campaign/list', {})).data[0]).toMatchObject({ name: 'Renewals November', state: 'paused', mode: 'preview', groupId: 55 });
    // Stop asks once more, in place; then the stopped campaign may be deleted.
    await row.getByRole('button', { name: 'Stop Renewals November' }).click();
    await row.getByRole('button', { name: 'Yes, stop' }).click();
    await expect.poll(() => row.locator('.state-badge').getAttribute('data-state'), until).toBe('stopped');
    expect(await row.getByRole('button', { name: /^(Resume|Pause)/ }).count()).toBe(0);
  });

  it('a role that may only look sees the lists, the campaigns and the live status, and no button that changes them', async () => {
    const role = await s.api.call('role/create', { name: 'Campaign viewer', permissions: ['campaign.view'] });
    await s.api.call('Agent/create', {
      name: 'Cara Viewer',
      email: 'viewer@example.test',
      password: 'agent-password',
      phone: '919820000009',
      call_pass: '34567899',
      dest_type: 'MOBILE',
      dest_value: '919820000009',
      role: role.data.roleId,
    });
    const ctx = await browser.newContext({ viewport: LAPTOP });
    const p = await ctx.newPage();
    try {
      await signInConsole(p, s.server.baseUrl, '#/campaigns', 'viewer@example.test', 'agent-password');
      const campaigns = p.locator('table:has(caption:text-is("Campaigns")) tbody tr[data-key]');
      await expect.poll(() => campaigns.count(), until).toBe(1);
      await campaigns.getByRole('button', { name: /^Live status/ }).click();
      await expect.poll(() => p.locator('#live-state').getAttribute('data-state'), until).toBe('stopped');
      expect(await p.locator('table:has(caption:text-is("Contact lists")) tbody').textContent()).toContain('Renewals');
      // Only "Live status" is left: no create, import, delete, start, resume, pause or stop.
      expect(await p.getByRole('button', { name: /^(Create|Import|Delete|Stop|Start|Resume|Pause)/ }).count()).toBe(0);
      expect(await p.getByRole('button', { name: /^Live status/ }).count()).toBe(1);
      await expectAccessibleEverywhere(p, 'campaigns, view only');
    } finally {
      await ctx.close();
    }
  });
});
