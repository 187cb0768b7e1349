import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createClient, type CallCenterClient } from '../../client/index.js';
import { toneWav } from '../../src/simulator/wav.js';
import { CHROMIUM, hasChromium } from './chromium.js';
import { ADMIN, startServer, type RunningServer } from './server.js';

const until = { timeout: 15_000, interval: 100 };

/**
 * The latest calls page in headless Chromium against the real server: calls
 * reported through events/ingest with a recording (a WAV file in
 * DATA_DIR/recordings, the default RECORDINGS_DIR) are listed newest first,
 * and the play button plays the recording through directstream.
 */
describe.skipIf(!hasChromium)('latest calls page in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let api: CallCenterClient;

  beforeAll(async () => {
    server = await startServer();
    api = createClient({ baseUrl: server.baseUrl });
    await api.login(ADMIN.username, ADMIN.password);
    await api.call('group/create', { groupId: 55, name: 'Support' });
    const role = await api.call('role/create', { name: 'Agents', permissions: ['agent.live'] });
    const agent = await api.call('Agent/create', {
      name: 'Asha Rao',
      email: 'asha@example.test',
      password: 'agent-password',
      phone: '919800000001',
      call_pass: '12345678',
      dest_type: 'MOBILE',
      dest_value: '919800000001',
      role: role.data.roleId,
      group: { '55': { receive_call: 'Y' } },
    });
    const a = agent.data.agentId;
    mkdirSync(join(server.dataDir, 'recordings', '2026', '11', '24'), { recursive: true });
    writeFileSync(join(server.dataDir, 'recordings', '2026', '11', '24', 'b1.wav'), toneWav(2, 440));
    const t = Date.now() / 1000 - 120;
    let seq = 0;
    const ev = (type: string, dt: number, fields: Record<string, unknown>) => ({ eventId: `b${++seq}`, type, ts: t + dt, ...fields });
    const res = await api.call('events/ingest', {
      events: [
        ev('agent.login', 0, { agentId: a, loginType: 'Web' }),
        ev('call.queued', 1, { callId: 'b1', groupId: 55, caller: '919811100001' }),
        ev('call.ringing', 2, { callId: 'b1', agentId: a }),
        ev('call.answered', 4, { callId: 'b1', agentId: a }),
        ev('call.recording', 30, { callId: 'b1', agentId: a, path: '2026/11/24/b1.wav' }),
        ev('call.ended', 34, { callId: 'b1', reason: 'completed' }),
        ev('call.queued', 40, { callId: 'b2', groupId: 55, caller: '919811100002' }),
        ev('call.ended', 45, { callId: 'b2', reason: 'abandoned' }),
      ] as Array<{ eventId: string; type: string; ts: number }>,
    });
    expect(res.data.errors).toEqual([]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--autoplay-policy=no-user-gesture-required', '--mute-audio'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in, lists the latest calls newest first, and plays a recording from its play button', async () => {
    const failures: string[] = [];
    page.on('console', (m) => m.type() === 'error' && failures.push(m.text()));
    await page.goto(`${server.baseUrl}/wallboard/calls`);
    await page.getByLabel('Username or agent e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const rows = page.locator('#calls-table tbody tr');
    await expect.poll(() => rows.count(), until).toBe(2);
    expect(await rows.nth(0).getAttribute('data-call-id')).toBe('b2');
    await expect.poll(() => rows.nth(0).textContent(), until).toContain('Ended before an offer');
    expect(await rows.nth(1).textContent()).toContain('Answered');
    expect(await rows.nth(1).textContent()).toContain('0:30'); // talk: answered at +4, ended at +34
    // Only the recorded call has a play button.
    expect(await rows.nth(0).getByRole('button').count()).toBe(0);
    await page.getByRole('button', { name: 'Play the recording of call b1' }).click();
    const player = page.locator('#player');
    await expect
      .poll(() => player.evaluate((el: HTMLAudioElement) => el.error?.code ?? (el.readyState >= 2 && el.duration > 1.9 ? 'playable' : 'loading')), until)
      .toBe('playable');
    await expect.poll(() => player.evaluate((el: HTMLAudioElement) => el.currentTime > 0 || el.ended), until).toBe(true);
    expect(await player.getAttribute('src')).toMatch(/^\/api\/v2\/recording\/directstream\/[0-9a-z]+\.[A-Za-z0-9_-]+\/2026\/11\/24\/b1\.wav$/);
    await expect.poll(() => page.locator('#calls-status').textContent(), until).toBe('Playing the recording of b1');
    expect(failures).toEqual([]);
  });
});
