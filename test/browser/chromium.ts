import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The Chromium the browser tests drive (Debian's package; CI installs it). */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

if (!hasChromium) {
  // REQUIRE_BROWSER=1 (set by .ci/run, as REQUIRE_POSTGRES is): a machine without Chromium fails the run instead of skipping the browser half.
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: install it with "apt-get install -y chromium"`);
  console.warn(`[browser tests] SKIPPED: ${CHROMIUM} is missing. Install it with "apt-get install -y chromium" (CI does, and sets REQUIRE_BROWSER=1).`);
}

let scratch: string | undefined;

/**
 * Where a screenshot is saved: `docs/<name>` (the one the README shows) with
 * UPDATE_SCREENSHOTS=1, else a temporary folder, so a test run leaves the
 * clone as it found it.
 */
export function screenshotPath(name: string): string {
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync('docs', { recursive: true });
    return join('docs', name);
  }
  scratch ??= mkdtempSync(join(tmpdir(), 'cc-screenshots-'));
  return join(scratch, name);
}
