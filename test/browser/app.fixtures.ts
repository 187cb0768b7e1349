import { expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createClient, type CallCenterClient } from '../../client/index.js';
import { freshDatabase, testDialects, type TestDatabase } from '../helpers/databases.js';
import type { Dialect } from '../../src/db/types.js';
import { blocking, describeViolations, runAxe } from './axe.js';
import { CHROMIUM } from './chromium.js';
import { ADMIN, startServer, type RunningServer } from './server.js';

/*
 * What the console's and the agent desk's browser tests share: Chromium, the real server on each
 * database (SQLite always, PostgreSQL when TEST_DATABASE_URL is set), axe in both themes at both
 * sizes, keyboard-only helpers; chromium.ts has the browser and the screenshots' place.
 */

export { hasChromium, screenshotPath as shotPath } from './chromium.js';

export const LAPTOP = { width: 1366, height: 768 };
export const PHONE = { width: 390, height: 844 };
/** The pages react within ~200 ms; generous for a loaded CI machine. */
export const until = { timeout: 15_000, interval: 100 };

export function dialects(): Dialect[] {
  return testDialects();
}

export interface Served {
  server: RunningServer;
  api: CallCenterClient;
  stop(): Promise<void>;
}

/** The server process on a fresh database of `dialect` (and `extraEnv`), with the operator signed in through the typed client. */
export async function serve(dialect: Dialect, extraEnv: Record<string, string> = {}): Promise<Served> {
  let db: TestDatabase | null = null;
  let env: Record<string, string> = {};
  if (dialect === 'postgres') {
    db = await freshDatabase('postgres');
    await db.db.close();
    env = db.env;
  }
  const server = await startServer({ ...env, ...extraEnv });
  const api = createClient({ baseUrl: server.baseUrl });
  await api.login(ADMIN.username, ADMIN.password);
  return {
    server,
    api,
    async stop() {
      await server.stop();
      await db?.drop();
    },
  };
}

export function launch(): Promise<Browser> {
  return chromium.launch({
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
}

export async function expectAccessible(page: Page, where: string): Promise<void> {
  const found = blocking(await runAxe(page));
  expect(found, `${where}:\n${describeViolations(found)}`).toEqual([]);
}

/** axe in the light and the dark theme, on a 1366 × 768 laptop and on a phone; the page is left as it was. */
export async function expectAccessibleEverywhere(page: Page, where: string): Promise<void> {
  const before = page.viewportSize();
  const theme = await page.evaluate(() => document.documentElement.dataset.theme ?? 'light');
  for (const size of [LAPTOP, PHONE]) {
    await page.setViewportSize(size);
    for (const t of ['light', 'dark']) {
      await page.evaluate((x) => (document.documentElement.dataset.theme = x), t);
      await expectAccessible(page, `${where} (${t}, ${size.width}×${size.height})`);
    }
  }
  await page.evaluate((x) => (document.documentElement.dataset.theme = x), theme);
  if (before) await page.setViewportSize(before);
}

/** Presses Tab until the element matching `selector` has the focus (keyboard-only runs), at most `max` times. */
export async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Signs in through the page's form with the keyboard only. */
export async function signInByKeyboard(page: Page, username: string, password: string): Promise<void> {
  await page.locator('#signin-username').waitFor({ state: 'visible' });
  await tabTo(page, '#signin-username');
  await page.keyboard.type(username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
}
