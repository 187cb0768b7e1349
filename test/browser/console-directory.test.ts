import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { dialects, expectAccessibleEverywhere, hasChromium, launch, LAPTOP, serve, shotPath, until, type Served } from './app.fixtures.js';
import { seedPeople, signInConsole } from './console.fixtures.js';

/**
 * The console's Directory page (/console#/directory) in Chromium against the server process on each
 * database: a prefix search, a number's page with its contact, adding it to the DNC list (read back
 * through the API), a sticky agent added and removed, the per-DID blacklist, a number that is none
 * refused next to its field; axe on the search and on a number's page.
 */
describe.skipIf(!hasChromium).each(dialects())('console directory in a browser [%s]', (dialect) => {
  let s: Served;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    s = await serve(dialect);
    await seedPeople(s.api);
    await s.api.call('Directory/create', { contact: '+91 98111 00042', contactinfo: { name: 'Ravi Kumar', company: 'Kumar Traders' } });
    await s.api.call('Directory/create', { contact: '+44 20 7946 0001', contactinfo: { name: 'Ann Lee' } });
    browser = await launch();
    page = await browser.newPage({ viewport: LAPTOP });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('finds a contact and adds its number to the DNC list', async () => {
    await signInConsole(page, s.server.baseUrl, '#/directory');
    await page.getByLabel('Numbers starting with').fill('9198');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const found = page.locator('tbody tr[data-key]');
    await expect.poll(() => found.count(), until).toBe(1);
    expect(await found.first().textContent()).toContain('Ravi Kumar');
    await expectAccessibleEverywhere(page, 'directory search');
    await page.getByRole('link', { name: '919811100042' }).click();
    await expect.poll(() => page.locator('#contact-facts').textContent(), until).toContain('Kumar Traders');
    await expect.poll(() => page.locator('#dnc-state').textContent(), until).toBe('Not on the DNC list');
    await page.getByRole('button', { name: 'Add to the DNC list' }).click();
    await expect.poll(() => page.locator('#dnc-state').textContent(), until).toBe('On the DNC list, permanently');
    expect(await page.locator('#dnc-status').textContent()).toBe('Added to the DNC list.');
    expect((await s.api.call('Directory/getDnc', { contact: '919811100042' })).data.dnc).toBe(-1);
  });

  it('adds and removes a sticky agent, and blocks the number on a DID', async () => {
    const agentOption = await page.locator('#sticky-agent option', { hasText: 'Asha Rao' }).getAttribute('value');
    await page.locator('#sticky-agent').selectOption(agentOption!);
    await page.getByRole('button', { name: 'Add sticky agent' }).click();
    const sticky = page.locator('[data-card="sticky"] tbody tr[data-key]');
    await expect.poll(() => sticky.count(), until).toBe(1);
    expect(await sticky.first().textContent()).toContain('Asha Rao');
    expect(await sticky.first().textContent()).toContain('No end');
    await page.getByRole('checkbox', { name: 'Main line (18005550100)' }).check();
    await page.getByRole('button', { name: 'Block on these DIDs' }).click();
    await expect.poll(() => page.locator('#bl-status').textContent(), until).toBe('Blocked on 18005550100.');
    await page.screenshot({ path: shotPath('console-directory.png'), fullPage: true });
    await expectAccessibleEverywhere(page, 'a number in the directory');
    await page.getByRole('button', { name: 'Remove Asha Rao as sticky agent' }).click();
    await expect.poll(() => page.locator('[data-card="sticky"] tbody').textContent(), until).toBe('None.');
    expect((await s.api.call('Directory/getSticky', { contact: '919811100042' })).data).toEqual([]);
  });

  it('a role that may only look reads the number but has no button that changes it', async () => {
    const role = await s.api.call('role/create', { name: 'Directory viewer', permissions: ['directory.view'] });
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
      await signInConsole(p, s.server.baseUrl, '#/directory/919811100042', 'viewer@example.test', 'agent-password');
      await expect.poll(() => p.locator('#dnc-state').textContent(), until).toBe('On the DNC list, permanently');
      expect(await p.locator('[data-card]').evaluateAll((els) => els.map((e) => e.getAttribute('data-card')))).toEqual(['contact', 'dnc', 'sticky']);
      expect(
        await p
          .getByRole('button')
          .filter({ hasText: /DNC|Block|sticky|Remove|Set until/ })
          .count(),
      ).toBe(0);
    } finally {
      await ctx.close();
    }
  });

  it('says next to the field that a number is none', async () => {
    await page.goto(`${s.server.baseUrl}/console#/directory`);
    await page.getByRole('textbox', { name: 'Number', exact: true }).fill('12-34');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.locator('[data-field="open-number"] .field-error').textContent(), until).toContain('6 to 15 digits');
  });
});
