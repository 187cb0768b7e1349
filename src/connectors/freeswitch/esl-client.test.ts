import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ccEvent, startFakeEsl, type FakeEslServer } from '../../../test/helpers/fake-esl.js';
import { backoffDelay, EslClient, ESL_SUBSCRIPTION } from './esl-client.js';
import type { EslEvent } from './esl-framing.js';

let fake: FakeEslServer | null = null;
let client: EslClient | null = null;
afterEach(async () => {
  client?.stop();
  await fake?.close();
  client = fake = null;
});

describe('ESL inbound client', () => {
  it('backs off 1 s, 2 s, 4 s … up to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map((n) => backoffDelay(n))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('authenticates, subscribes, answers api commands and reconnects after a disconnect', async () => {
    fake = await startFakeEsl('s3cret');
    fake.api.set('callcenter_config agent list', 'name|status\n5001@default|Available\n+OK\n');
    const events: EslEvent[] = [];
    const lines: string[] = [];
    let ready = 0;
    client = new EslClient({
      host: '127.0.0.1',
      port: fake.port,
      password: 's3cret',
      onEvent: (e) => events.push(e),
      onReady: () => ready++,
      log: (l) => lines.push(l),
      backoff: { initialMs: 10, maxMs: 40 },
    });
    client.start();
    await expect.poll(() => ready).toBe(1);
    expect(fake.commands.slice(0, 2)).toEqual(['auth s3cret', `event plain ${ESL_SUBSCRIPTION}`]);
    await expect(client.api('callcenter_config agent list')).resolves.toBe('name|status\n5001@default|Available\n+OK\n');
    await fake.send(ccEvent(1_795_000_000_000_000, 'agent-status-change', { 'CC-Agent': '5001@default', 'CC-Agent-Status': 'On Break' }));
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]!.headers.get('CC-Agent-Status')).toBe('On Break');

    fake.disconnect();
    await fake.subscribed(2);
    expect(fake.connections).toBe(2);
    await expect.poll(() => ready).toBe(2);
    expect(lines.some((l) => l.includes('reconnecting in 0.01 s'))).toBe(true);
    // The password is never logged.
    expect(lines.join('\n')).not.toContain('s3cret');
  });

  it('a refused password is logged without the password and retried with growing delays', async () => {
    fake = await startFakeEsl('right');
    const lines: string[] = [];
    client = new EslClient({
      host: '127.0.0.1',
      port: fake.port,
      password: 'wrong',
      onEvent: () => undefined,
      log: (l) => lines.push(l),
      backoff: { initialMs: 5, maxMs: 20 },
    });
    client.start();
    await fake.received('auth ', 3);
    await expect.poll(() => lines.filter((l) => l.startsWith('freeswitch: reconnecting')).length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l.includes('auth refused: -ERR invalid')).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l.startsWith('freeswitch: reconnecting')).slice(0, 3)).toEqual([
      'freeswitch: reconnecting in 0.005 s',
      'freeswitch: reconnecting in 0.01 s',
      'freeswitch: reconnecting in 0.02 s',
    ]);
    expect(lines.join('\n')).not.toContain('wrong');
  });

  it('a host the ACL refuses is told so (text/rude-rejection) and retried', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      // The client drops the connection as soon as it reads the rejection: a reset here is expected.
      socket.on('error', () => undefined);
      socket.end('Content-Type: text/rude-rejection\nContent-Length: 24\n\nAccess Denied, go away.\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const lines: string[] = [];
    client = new EslClient({
      host: '127.0.0.1',
      port: (server.address() as { port: number }).port,
      password: 'p',
      onEvent: () => undefined,
      log: (l) => lines.push(l),
      backoff: { initialMs: 5, maxMs: 10 },
    });
    client.start();
    await expect.poll(() => connections).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toBe('freeswitch: the event socket refused this host (Access Denied, go away.): check apply-inbound-acl');
    client.stop();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a port that accepts and says nothing is left after the command timeout and retried', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined); // the client gives up and drops it
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const lines: string[] = [];
    client = new EslClient({
      host: '127.0.0.1',
      port: (server.address() as { port: number }).port,
      password: 'p',
      onEvent: () => undefined,
      log: (l) => lines.push(l),
      backoff: { initialMs: 5, maxMs: 10 },
      commandTimeoutMs: 50,
    });
    client.start();
    await expect.poll(() => connections).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/did not complete auth within 50 ms$/);
    client.stop();
    await new Promise<void>((r) => server.close(() => r()));
  });
});
