import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SwitchApi } from './api-client.js';
import { CommandStream, type TakeoverCommand } from './command-stream.js';
import { Health } from './health.js';

/** A stand-in for GET /api/v2/stream that scripts what each connection receives. */
async function fakeStream(script: Array<(res: ServerResponse) => void>) {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const step = script[seen.length - 1];
    if (!step) return void res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 2000\n\nevent: ready\ndata: {"lstSync":1}\n\n');
    step(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const NOW = 1_800_000_000_000;
const takeover = (seq: number, ts: number) =>
  `id: ${seq}\nevent: call.takeover\ndata: ${JSON.stringify({ callId: `k${seq}`, from: 1, to: 2, caller: '9198', ts, seq })}\n\n`;

const stop: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const s of stop.splice(0)) await s();
});

describe('CommandStream', () => {
  it('executes commands, resumes with Last-Event-ID after a drop, skips commands older than 60 s and repeats', async () => {
    const fake = await fakeStream([
      (res) => {
        // An agent change, then a takeover: the id of the group is on its last message.
        res.write('event: agent\ndata: {"agentId":2}\n\n' + takeover(7, NOW / 1000 - 5));
        setTimeout(() => res.end(), 50);
      },
      (res) => {
        // Redelivered (at least once), one too old, one fresh.
        res.write(takeover(7, NOW / 1000 - 5) + takeover(8, NOW / 1000 - 61) + takeover(9, NOW / 1000));
      },
    ]);
    const got: TakeoverCommand[] = [];
    const lines: string[] = [];
    const health = new Health('test', () => NOW);
    const s = new CommandStream({
      api: new SwitchApi({ api: fake.url, userId: 'switch-1', token: 'tok' }),
      handlers: { takeover: async (c) => void got.push(c), originate: async () => {}, agentState: async () => {} },
      health,
      log: (l) => lines.push(l),
      now: () => NOW,
      minBackoffMs: 20,
    });
    stop.push(
      () => s.stop(),
      () => void fake.server.close(),
    );
    s.start();
    const end = Date.now() + 5000;
    while (got.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(got.map((c) => c.callId)).toEqual(['k7', 'k9']);
    expect(fake.seen[0]!['last-event-id']).toBeUndefined();
    expect(fake.seen[1]!['last-event-id']).toBe('7');
    expect(s.lastEventId).toBe('9');
    expect(health.commandsExecuted).toBe(2);
    expect(health.commandsSkipped).toBe(1);
    expect(lines.some((l) => l.startsWith('call.takeover k8 not executed: pushed 61 s ago'))).toBe(true);
    expect(lines.some((l) => l.includes('reconnecting') && l.includes('from id 7'))).toBe(true);
  });
});
