import { afterEach, describe, expect, it } from 'vitest';
import { FakeAmi } from '../../../test/helpers/ami-server.js';
import { AmiClient } from './ami-client.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** Generous: CI runs this beside the whole suite on two cores. */
async function waitFor(cond: () => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function client(fake: FakeAmi, secret: string, lines: string[], reasons: string[], opts: { keepAliveMs?: number } = {}) {
  let connected = 0;
  const c = new AmiClient({
    host: '127.0.0.1',
    port: fake.port,
    username: 'callcenter',
    secret,
    minBackoffMs: 20,
    maxBackoffMs: 80,
    keepAliveMs: opts.keepAliveMs,
    timeoutMs: 200,
    onEvent: () => {},
    onConnected: async () => void connected++,
    onDisconnected: (r) => void reasons.push(r),
    log: (l) => void lines.push(l),
  });
  cleanup.push(() => c.stop());
  return { c, connected: () => connected };
}

describe('AmiClient', () => {
  it('a refused login is reported and retried with growing backoff (20, 40, 80, 80 ms)', async () => {
    const fake = new FakeAmi();
    await fake.start();
    cleanup.push(() => fake.close());
    const lines: string[] = [];
    const reasons: string[] = [];
    const { c, connected } = client(fake, 'wrong', lines, reasons);
    c.start();
    // The fourth refusal is logged after the fake counts the fourth login: wait for both.
    await waitFor(() => fake.logins >= 4 && lines.length >= 4);
    expect(connected()).toBe(0);
    expect(reasons[0]).toBe('AMI login failed: Authentication failed');
    expect(lines.slice(0, 4).map((l) => l.replace(/^.*reconnecting in /, ''))).toEqual(['0.02 s', '0.04 s', '0.08 s', '0.08 s']);
  });

  it('logs in, correlates actions by ActionID, reconnects after the switch drops the link, and a dead link fails the keep-alive', async () => {
    const fake = new FakeAmi();
    await fake.start();
    cleanup.push(() => fake.close());
    const lines: string[] = [];
    const reasons: string[] = [];
    const { c, connected } = client(fake, 's3cret', lines, reasons, { keepAliveMs: 50 });
    c.start();
    await waitFor(() => connected() === 1);
    const [pong, redirect] = await Promise.all([c.action([['Action', 'Ping']]), c.action([['Action', 'Redirect']])]);
    expect(pong.headers).toContainEqual(['Ping', 'Pong']);
    expect(redirect.headers).toContainEqual(['Message', 'Redirect successful']);
    await expect(c.action([['Action', 'NoSuchAction']])).rejects.toThrow('Invalid/unknown command');
    fake.drop();
    await waitFor(() => connected() === 2);
    expect(reasons).toEqual(['AMI connection closed']);
    // The keep-alive pings every 50 ms: a second Ping comes (waited for, not assumed to have come already on a loaded machine).
    await waitFor(() => fake.actions.filter((a) => a.Action === 'Ping').length > 1);
    // The link stays open but nothing answers: the keep-alive Ping times out (200 ms) and the link is dropped.
    fake.mute = true;
    await waitFor(() => reasons.length === 2);
    expect(reasons[1]).toBe('keep-alive failed: Ping: no response within 200 ms');
  });
});
