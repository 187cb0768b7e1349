import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Harness } from './harness.js';

/**
 * A local webhook receiver for the tests: answers GET with GODBLESSYOU
 * (unless told otherwise) and POSTs from a script of answers (then 200),
 * and records every request it got.
 */

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type ScriptedAnswer = { status: number; body?: string; headers?: Record<string, string> } | 'hang' | 'reset';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  posts(): Received[];
  /** Answers for the next POSTs, in order. */
  script: ScriptedAnswer[];
  /** The GET (verification) answer. */
  verifyAnswer: { status: number; body: string; headers?: Record<string, string> };
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hung: http.ServerResponse[] = [];
  const r: Receiver = {
    url: '',
    port: 0,
    received: [],
    posts: () => r.received.filter((x) => x.method === 'POST'),
    script: [],
    verifyAnswer: { status: 200, body: '  GODBLESSYOU\n' },
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      r.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST') {
        res.writeHead(r.verifyAnswer.status, r.verifyAnswer.headers).end(r.verifyAnswer.body);
        return;
      }
      const next = r.script.shift() ?? { status: 200, body: 'ok' };
      if (next === 'hang') return void hung.push(res);
      if (next === 'reset') return void req.socket.destroy();
      res.writeHead(next.status, next.headers).end(next.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hook`;
  return r;
}

/**
 * Sends every delivery due at the harness clock and waits for attempts the
 * background worker has in flight, so the log is settled when it resolves.
 */
export async function deliverDue(h: Harness): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    await h.services.webhookWorker.runDue();
    const now = Math.floor(h.clock.now());
    const busy = await h.db.get<{ n: number }>(
      `SELECT (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending' AND (next_at <= $1 OR lease_until > $1))
            + (SELECT COUNT(*) FROM webhook_outbox) AS n`,
      [now],
    );
    if (Number(busy?.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('deliveries did not settle');
}
