import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createClient, type CallCenterClient } from '../../client/index.js';
import { PERMISSIONS } from '../../src/auth/permissions.js';
import { PERMISSION_TEXT } from '../../web/app/console/permissions.js';
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
 * The first page's JavaScript (PRODUCT.md §15: under 200 kB compressed): the console's entry, the
 * chunks it imports and Today's chunk with its own, as bin/build-web.js bundles them, gzip -9.
 */
describe('console bundle', () => {
  it('the first page (the console and Today) is under 200 kB of compressed JavaScript', async () => {
    const { build } = await import('esbuild');
    // A URL import, as src/modules/wallboard/app.static.ts does: bin/ is plain JavaScript without types.
    const web = new URL('../../bin/build-web.js', import.meta.url).href;
    const { webBuildOptions } = (await import(web)) as { webBuildOptions(): Record<string, unknown> };
    const out = '/virtual-out';
    const r = await build({ ...webBuildOptions(), outdir: out, write: false, metafile: true });
    const bytes = new Map(r.outputFiles.map((f) => [path.relative(out, f.path), f.contents]));
    const meta = r.metafile.outputs;
    const key = (o: string) => path.relative(out, path.resolve(o));
    const closure = (o: string, seen: Set<string>): Set<string> => {
      if (seen.has(o)) return seen;
      seen.add(o);
      for (const i of meta[o]!.imports) if (i.kind === 'import-statement') closure(i.path, seen);
      return seen;
    };
    const entry = Object.keys(meta).find((o) => o.endsWith('/console.js'))!;
    const today = Object.keys(meta).find((o) => Object.keys(meta[o]!.inputs).some((i) => i.endsWith('console/today.tsx')))!;
    expect(today, 'Today is a chunk of its own').not.toBe(entry);
    const first = closure(today, closure(entry, new Set()));
    const size = [...first].reduce((n, o) => n + gzipSync(bytes.get(key(o))!, { level: 9 }).length, 0);
    expect(size).toBeGreaterThan(5_000);
    expect(size).toBeLessThan(200_000);
    // The other pages are not part of it.
    const people = Object.keys(meta).find((o) => Object.keys(meta[o]!.inputs).some((i) => i.endsWith('console/people.tsx')))!;
    expect(first.has(people)).toBe(false);
  });
});

/**
 * The console's Today and People pages (/console) end to end in Chromium against the server
 * process on each database: a client sees every page and button, an agent with a narrow role
 * neither (and the API refuses it anyway); Today's figures from the switch's events; an agent
 * created with the keyboard alone, a taken e-mail's 1512 next to the e-mail field, a group
 * renamed; axe in both themes at both sizes on every section.
 */
describe.skipIf(!hasChromium).each(dialects())('console: Today and People [%s]', (dialect) => {
  let s: Served;
  let browser: Browser;
  let page: Page;
  let switchApi: CallCenterClient;
  let narrowEmail = '';
  let seq = 0;
  const ev = (type: string, fields: Ev): Ev => ({ eventId: `c${++seq}-${Math.random()}`, type, ts: Date.now() / 1000, ...fields });
  const navPages = (p: Page) => p.locator('nav.pages a').evaluateAll((els) => els.map((e) => e.getAttribute('data-page')));

  beforeAll(async () => {
    s = await serve(dialect);
    const { api } = s;
    await api.call('group/create', { groupId: 55, name: 'Support' });
    await api.call('group/create', { groupId: 56, name: 'Sales' });
    const agents = await api.call('role/create', { name: 'Agents', permissions: ['agent.live'] });
    const made = await api.call('Agent/create', {
      name: 'Asha Rao',
      email: 'asha@example.test',
      password: 'agent-password',
      phone: '919810000001',
      call_pass: '23456781',
      dest_type: 'MOBILE',
      dest_value: '919810000001',
      role: agents.data.roleId,
      group: { '55': { receive_call: 'Y' } },
    });
    narrowEmail = 'asha@example.test';
    // The switch reports Asha logged in and a caller waiting in Support: Today shows both.
    const token = await api.call('auth/token', { name: 'PBX', kind: 'switch' });
    switchApi = createClient({ baseUrl: s.server.baseUrl, credentials: { userId: token.userId, token: token.token } });
    const agentId = made.data.agentId;
    const res = await switchApi.call('events/ingest', {
      events: [
        ev('agent.login', { agentId, loginType: 'SIP' }),
        ev('call.queued', { callId: `today-${dialect}`, groupId: 55, caller: '919811100042', did: '18005550100' }),
      ] as Array<{ eventId: string; type: string; ts: number }>,
    });
    expect(res.data.errors).toEqual([]);
    browser = await launch();
    page = await browser.newPage({ viewport: LAPTOP });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('a client signs in with the keyboard and lands on Today: waiting, logged in and agents by state per group', async () => {
    await page.goto(`${s.server.baseUrl}/console`);
    await signInByKeyboard(page, 'wallboard-admin', 'wallboard-password');
    await expect.poll(() => navPages(page), until).toEqual(expect.arrayContaining(['today', 'people']));
    expect((await navPages(page))[0]).toBe('today');
    const support = page.locator('[data-group="55"]');
    await expect.poll(() => support.locator('[data-figure="waiting"]').textContent(), until).toBe('1');
    expect(await support.locator('h2').textContent()).toBe('Support');
    expect(await support.locator('[data-figure="logged-in"]').textContent()).toBe('1');
    expect(await support.locator('[data-state="available"] strong').textContent()).toBe('1');
    expect(await page.locator('[data-group="56"] [data-figure="waiting"]').textContent()).toBe('0');
    expect(await page.getByRole('link', { name: 'wallboard' }).first().getAttribute('href')).toBe('/wallboard');
    // The plan's need is shown (— without history), as on the wallboard.
    expect(await support.locator('[data-figure="needed"]').textContent()).toMatch(/^(—|\d+)$/);
    await expectAccessibleEverywhere(page, 'console Today');
    await page.screenshot({ path: shotPath('console-today.png') });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: shotPath('console-today-phone.png'), fullPage: true });
    await page.setViewportSize(LAPTOP);
    // The page reads again on its own: a second caller shows without a reload.
    await switchApi.call('events/ingest', {
      events: [ev('call.queued', { callId: `today2-${dialect}`, groupId: 55, caller: '919811100043', did: '18005550100' })] as Array<{
        eventId: string;
        type: string;
        ts: number;
      }>,
    });
    await expect.poll(() => support.locator('[data-figure="waiting"]').textContent(), { timeout: 25_000, interval: 200 }).toBe('2');
  }, 60_000);

  it('creates an agent with the keyboard alone (Tab and Enter)', async () => {
    await page.goto(`${s.server.baseUrl}/console#/people/agents`);
    await page.locator('#btn-new-agent').waitFor();
    await tabTo(page, '#btn-new-agent');
    await page.keyboard.press('Enter');
    // The form takes the focus at its first field; every field is reached with Tab.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), until).toBe('f-name');
    const type = async (text: string) => {
      await page.keyboard.type(text);
      await page.keyboard.press('Tab');
    };
    await type('Ben Okafor');
    await type('ben@example.test');
    await type('ben-password');
    await type('919810000002');
    await type('34567812');
    await page.keyboard.press('Tab'); // destination type: Mobile (the default)
    await type('919810000002');
    // Role: the first role (the default); then the groups: Enter on the submit button.
    await tabTo(page, '#agent-form button[type="submit"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#agents-status').textContent(), until).toMatch(/^Agent Ben Okafor created \(id \d+\)\.$/);
    await expect.poll(() => page.locator('tr', { hasText: 'ben@example.test' }).count(), until).toBe(1);
    const listed = await s.api.call('Agent/list', { name: 'Ben' });
    expect(listed.response).toMatchObject([{ email: 'ben@example.test', phone: '919810000002', roleName: 'Agents' }]);
  }, 60_000);

  it('shows the 1512 of a taken e-mail next to the e-mail field, and the agent is not created', async () => {
    await page.locator('#btn-new-agent').click();
    await page.getByLabel('Name', { exact: true }).fill('Ben Again');
    await page.getByLabel('E-mail (the login)').fill('ben@example.test');
    await page.getByLabel('Password', { exact: true }).fill('other-password');
    await page.getByLabel('Mobile number').fill('919810000003');
    await page.getByLabel('Call password').fill('45678123');
    await page.getByLabel('Destination').fill('919810000003');
    await page.getByLabel('Support').check();
    await page.getByRole('button', { name: 'Create agent' }).click();
    const error = page.locator('[data-field="email"] .field-error');
    await expect.poll(() => error.textContent(), until).toBe('This e-mail is already used by another agent or login.');
    expect(await page.locator('#f-email').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#f-email').getAttribute('aria-describedby')).toBe('f-email-error');
    // The focus moves to the field once the error is drawn (an effect after the render).
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), until).toBe('f-email');
    expect(await page.locator('[data-field="name"] .field-error').count()).toBe(0);
    expect((await s.api.call('Agent/list', { name: 'Ben Again' })).response).toEqual([]);
    await expectAccessibleEverywhere(page, 'console People: agent form with an error');
    await page.screenshot({ path: shotPath('console-people.png') });
    // A new e-mail: created, in Support.
    await page.getByLabel('E-mail (the login)').fill('ben.again@example.test');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect.poll(() => page.locator('tr', { hasText: 'ben.again@example.test' }).count(), until).toBe(1);
    expect((await s.api.call('Agent/list', { name: 'Ben Again' })).response).toMatchObject([{ group: [55] }]);
  }, 60_000);

  it('edits a group and an agent, deletes an agent', async () => {
    await page.locator('[data-section="groups"]').click();
    await page.getByRole('button', { name: 'Edit Sales' }).click();
    await page.getByLabel('Name').fill('Sales and renewals');
    await page.getByRole('button', { name: 'Save group' }).click();
    await expect.poll(() => page.locator('#groups-status').textContent(), until).toBe('Group Sales and renewals saved.');
    await expect.poll(() => page.locator('tr[data-key="56"]').textContent(), until).toContain('Sales and renewals');
    expect((await s.api.call('group/list', {})).data.find((g) => g.groupId === 56)?.name).toBe('Sales and renewals');
    // A taken id is said next to the id field.
    await page.getByRole('button', { name: 'New group' }).click();
    await page.getByLabel('Name').fill('Again');
    await page.getByLabel('Id (blank: the next free one)').fill('55');
    await page.getByRole('button', { name: 'Create group' }).click();
    await expect.poll(() => page.locator('[data-field="groupId"] .field-error').textContent(), until).toBe('This group id is already used in the account.');
    await expectAccessibleEverywhere(page, 'console People: groups');
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.locator('[data-section="agents"]').click();
    await page.getByRole('button', { name: 'Edit Ben Okafor' }).click();
    await page.getByLabel('Sales and renewals').check();
    await page.getByRole('button', { name: 'Save agent' }).click();
    await expect.poll(() => page.locator('#agents-status').textContent(), until).toBe('Agent Ben Okafor saved.');
    expect((await s.api.call('Agent/list', { name: 'Ben Okafor' })).response).toMatchObject([{ group: [56] }]);
    await page.getByRole('button', { name: 'Delete Ben Again' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => page.locator('#agents-status').textContent(), until).toBe('Agent Ben Again deleted.');
    // The row and its buttons are gone: the focus is on the sentence that says so.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), until).toBe('agents-status');
    expect((await s.api.call('Agent/list', { name: 'Ben Again' })).response).toEqual([]);
  }, 60_000);

  it('creates a role with its permissions and a number; a bad number is refused next to its field', async () => {
    // The page's permission list is the service's, in its order.
    expect(PERMISSION_TEXT.map(([p]) => p)).toEqual([...PERMISSIONS]);
    await page.locator('[data-section="roles"]').click();
    await page.getByRole('button', { name: 'New role' }).click();
    await page.getByLabel('Name').fill('Supervisors');
    await page.getByLabel(/See agents live/).check();
    await page.getByLabel(/Read the audit trail/).check();
    await page.getByRole('button', { name: 'Create role' }).click();
    await expect.poll(() => page.locator('#roles-status').textContent(), until).toMatch(/^Role Supervisors created/);
    const roles = await s.api.call('role/list', { search_params: { name: 'Supervisors' } });
    expect(roles.response).toMatchObject([{ permissions: ['agent.live', 'audit.view'], can_see: 1 }]);
    await expectAccessibleEverywhere(page, 'console People: roles');

    await page.locator('[data-section="numbers"]').click();
    await page.getByRole('textbox', { name: 'Number' }).fill('12');
    await page.getByRole('button', { name: 'Add number' }).click();
    await expect.poll(() => page.locator('[data-field="did"] .field-error').textContent(), until).toContain('3 to 15 digits');
    await page.getByRole('textbox', { name: 'Number' }).fill('+1 800 555 0100');
    await page.getByLabel('Name (optional)').fill('Toll free');
    await page.getByRole('button', { name: 'Add number' }).click();
    await expect.poll(() => page.locator('tr[data-key="18005550100"]').count(), until).toBe(1);
    await expectAccessibleEverywhere(page, 'console People: numbers');
  }, 60_000);

  it('edits and deletes a role, deletes a group and a number', async () => {
    await page.locator('[data-section="roles"]').click();
    await page.getByRole('button', { name: 'Edit Supervisors' }).click();
    await page.getByLabel(/Read the audit trail/).uncheck();
    await page.getByLabel('Sees').selectOption('0');
    await page.getByRole('button', { name: 'Save role' }).click();
    await expect.poll(() => page.locator('#roles-status').textContent(), until).toBe('Role Supervisors saved.');
    expect((await s.api.call('role/list', { search_params: { name: 'Supervisors' } })).response).toMatchObject([{ permissions: ['agent.live'], can_see: 0 }]);
    await page.getByRole('button', { name: 'Delete Supervisors' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => page.locator('#roles-status').textContent(), until).toBe('Role Supervisors deleted.');
    expect((await s.api.call('role/list', { search_params: { name: 'Supervisors' } })).response).toEqual([]);

    await page.locator('[data-section="numbers"]').click();
    await page.getByRole('button', { name: 'Delete 18005550100' }).click();
    // Cancel keeps it; Yes removes it.
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await s.api.call('did/list', {})).data.map((d) => d.did)).toContain('18005550100');
    await page.getByRole('button', { name: 'Delete 18005550100' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => page.locator('#dids-status').textContent(), until).toBe('Number 18005550100 removed.');
    expect((await s.api.call('did/list', {})).data).toEqual([]);

    await page.locator('[data-section="groups"]').click();
    await page.getByRole('button', { name: 'Delete Sales and renewals' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => page.locator('#groups-status').textContent(), until).toBe('Group Sales and renewals deleted.');
    expect((await s.api.call('group/list', {})).data.map((g) => g.groupId)).toEqual([55]);
  }, 60_000);

  it('a role that may see people but not change them gets the lists without a button', async () => {
    const viewer = await s.api.call('role/create', { name: 'Viewer', permissions: ['agent.view', 'role.view'] });
    await s.api.call('Agent/create', {
      name: 'Chen Li',
      email: 'chen@example.test',
      password: 'agent-password',
      phone: '919810000004',
      call_pass: '56781234',
      dest_type: 'MOBILE',
      dest_value: '919810000004',
      role: viewer.data.roleId,
    });
    const ctx = await browser.newContext({ viewport: LAPTOP });
    const p = await ctx.newPage();
    try {
      await p.goto(`${s.server.baseUrl}/console#/people`);
      await p.getByLabel('Username or agent e-mail').fill('chen@example.test');
      await p.getByLabel('Password').fill('agent-password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => p.locator('#main tbody tr').count(), until).toBeGreaterThan(1);
      expect(await p.locator('[data-section]').evaluateAll((els) => els.map((e) => e.getAttribute('data-section')))).toEqual(['agents', 'groups', 'roles']);
      expect(await p.locator('#main tbody').textContent()).toContain('asha@example.test');
      for (const section of ['agents', 'groups', 'roles']) {
        await p.locator(`[data-section="${section}"]`).click();
        await p.locator(`#${section}-title`).waitFor();
        await expect.poll(() => p.locator('#main tbody tr').count(), until).toBeGreaterThan(0);
        expect(await p.locator('#main button').allTextContents(), section).toEqual([]);
      }
      await expectAccessibleEverywhere(p, 'console People for a viewer');
    } finally {
      await ctx.close();
    }
  }, 60_000);

  it('an agent with a narrow role sees neither People nor its buttons, and the API refuses them anyway', async () => {
    const ctx = await browser.newContext({ viewport: PHONE });
    const p = await ctx.newPage();
    try {
      await p.goto(`${s.server.baseUrl}/console#/people`);
      await p.getByLabel('Username or agent e-mail').fill(narrowEmail);
      await p.getByLabel('Password').fill('agent-password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.locator('nav.pages').waitFor();
      const pages = await navPages(p);
      expect(pages).toContain('today');
      expect(pages).not.toContain('people');
      expect(pages).not.toContain('audit');
      expect(await p.locator('main').textContent()).toContain('Your role does not include that page.');
      // Today shows the agents (agent.live) but not the figures its role does not include.
      await expect.poll(() => p.locator('[data-group="55"] [data-state="available"] strong').textContent(), until).toBe('1');
      expect(await p.locator('[data-group="55"] [data-figure="waiting"]').textContent()).toBe('—');
      expect(await p.getByRole('button', { name: /New agent|Edit|Delete/ }).count()).toBe(0);
      await expectAccessibleEverywhere(p, 'console for a narrow role');
      const asha = createClient({ baseUrl: s.server.baseUrl });
      await asha.login(narrowEmail, 'agent-password');
      await expect(
        asha.call('Agent/create', {
          name: 'Forced',
          email: 'forced@example.test',
          password: 'forced-password',
          phone: '919810000009',
          call_pass: '12345678',
          dest_type: 'MOBILE',
          dest_value: '919810000009',
          role: 1,
        }),
      ).rejects.toMatchObject({ code: 1015 });
      await expect(asha.call('group/update', { groupId: 55, name: 'Mine' })).rejects.toMatchObject({ code: 1015 });
    } finally {
      await ctx.close();
    }
  }, 60_000);
});
