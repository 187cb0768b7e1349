import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { toneWav } from '../../src/simulator/wav.js';
import { dialects, expectAccessibleEverywhere, hasChromium, launch, LAPTOP, serve, shotPath, until, type Served } from './app.fixtures.js';
import { callEvents, ingest, seedPeople, signInConsole } from './console.fixtures.js';

/**
 * The console's Calls page (/console#/calls) in Chromium against the server process on each
 * database: the call reports with the number, status and agent filters; a call's detail with its
 * two legs (missed, then answered); its recording played in the page (directstream); the filtered
 * list as CSV (CallReport/export with the session as a bearer token); axe on the list and the detail.
 */
describe.skipIf(!hasChromium).each(dialects())('console calls in a browser [%s]', (dialect) => {
  let s: Served;
  let browser: Browser;
  let page: Page;
  const rows = () => page.locator('tbody tr[data-key]');
  const keys = () => rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-key')).sort());

  beforeAll(async () => {
    s = await serve(dialect);
    const { asha, ben } = await seedPeople(s.api);
    mkdirSync(join(s.server.dataDir, 'recordings', '2026', '11', '29'), { recursive: true });
    writeFileSync(join(s.server.dataDir, 'recordings', '2026', '11', '29', 'k1.wav'), toneWav(2, 440));
    const t = Math.floor(Date.now() / 1000) - 300;
    const login = (agentId: number) => ({ eventId: `login-${agentId}`, type: 'agent.login', ts: t - 10, agentId, loginType: 'SIP' });
    // k1 rings Ben first (missed), then Asha answers and it is recorded; k2 is abandoned; k3 Ben answers.
    const k1 = callEvents('k1', t, '919811100001', asha, [
      { eventId: 'k1-rec', type: 'call.recording', ts: t + 30, callId: 'k1', agentId: asha, path: '2026/11/29/k1.wav' },
    ]);
    k1.splice(
      1,
      0,
      { eventId: 'k1-ring-ben', type: 'call.ringing', ts: t + 1, callId: 'k1', agentId: ben },
      { eventId: 'k1-miss-ben', type: 'call.missed', ts: t + 2, callId: 'k1', agentId: ben },
    );
    await ingest(s.api, [login(asha), login(ben), ...k1]);
    await ingest(s.api, callEvents('k2', t + 60, '919811100002', null));
    await ingest(s.api, callEvents('k3', t + 120, '919811100003', ben));
    browser = await launch();
    page = await browser.newPage({ viewport: LAPTOP });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('searches by number, status and agent', async () => {
    await signInConsole(page, s.server.baseUrl, '#/calls');
    await expect.poll(keys, until).toEqual(['k1', 'k2', 'k3']);
    await page.getByLabel('Number').fill('+91 98111 00002');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(keys, until).toEqual(['k2']);
    expect(await rows().first().textContent()).toContain('Ended before an offer');
    await page.getByLabel('Number').fill('');
    await page.getByLabel('Status').selectOption('3');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(keys, until).toEqual(['k1', 'k3']);
    await page
      .getByLabel('Agent')
      .selectOption({ label: `Ben Okafor (${await page.locator('#calls-agent option', { hasText: 'Ben' }).getAttribute('value')})` });
    await page.getByRole('button', { name: 'Search' }).click();
    // Ben was offered k1 (missed) and answered k3: both are "his" calls.
    await expect.poll(keys, until).toEqual(['k1', 'k3']);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Number').fill('919811100003');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(keys, until).toEqual(['k3']);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#calls-csv').click()]);
    const csv = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(csv.map((r) => r.callId)).toEqual(['k3']);
    await expectAccessibleEverywhere(page, 'calls list');
  }, 60_000);

  it('shows a call with its legs and plays its recording in the page', async () => {
    // The list keeps its filters (Ben's calls, number …03): search for k1's number.
    await page.getByLabel('Number').fill('919811100001');
    await page.getByLabel('Number').press('Enter');
    await page.getByRole('link', { name: 'Details of call k1' }).click();
    await expect.poll(() => page.locator('#call-facts').textContent(), until).toContain('919811100001');
    const legs = page.locator('tbody tr[data-key]');
    await expect.poll(() => legs.count(), until).toBe(2);
    expect(await legs.nth(0).textContent()).toContain('Ben Okafor');
    expect(await legs.nth(0).textContent()).toContain('Missed');
    expect(await legs.nth(1).textContent()).toContain('Asha Rao');
    expect(await legs.nth(1).textContent()).toContain('Answered');
    const audio = page.locator('audio.recording');
    expect(await audio.getAttribute('src')).toMatch(/^\/api\/v2\/recording\/directstream\/[0-9a-z]+\.[A-Za-z0-9_-]+\/2026\/11\/29\/k1\.wav$/);
    await expect
      .poll(() => audio.evaluate((el: HTMLAudioElement) => el.error?.code ?? (el.duration > 1.9 ? 'has duration' : 'loading')), until)
      .toBe('has duration');
    // Played as a person would: a click on the player's play button (the left end of its controls).
    await audio.click({ position: { x: 20, y: 20 } });
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime > 0 || el.ended), until).toBe(true);
    await page.screenshot({ path: shotPath('console-calls.png') });
    await expectAccessibleEverywhere(page, 'call detail');
  }, 60_000);
});
