import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Harness } from './harness.js';

/*
 * GET /api/v2/stream over real HTTP (the stream hijacks the response, so
 * app.inject cannot read it): the harness app listening on a free port, and
 * a reader of Server-Sent Events.
 */

export interface SseMessage {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/** An open SSE connection; `next` waits (bounded) for a message matching the predicate. */
export interface SseReader {
  status: number;
  messages: SseMessage[];
  raw: () => string;
  next(pred: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  close(): void;
}

const readers: SseReader[] = [];

/** Closes every reader opened so far (for afterAll). */
export function closeReaders(): void {
  readers.splice(0).forEach((r) => r.close());
}

/** The harness app's base URL, listening on a free port from the first call on. */
export async function baseUrl(h: Harness): Promise<string> {
  if (!h.app.server.listening) await h.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let buf = '';
      const messages: SseMessage[] = [];
      const waiters: Array<() => void> = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const m: Partial<SseMessage> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) m.id = line.slice(4);
            else if (line.startsWith('event: ')) m.event = line.slice(7);
            else if (line.startsWith('data: ')) m.data = JSON.parse(line.slice(6)) as Record<string, unknown>;
          }
          if (m.event) messages.push(m as SseMessage);
        }
        waiters.splice(0).forEach((w) => w());
      });
      let all = '';
      res.on('data', (c: string) => (all += c));
      const reader: SseReader = {
        status: res.statusCode ?? 0,
        messages,
        raw: () => all,
        next: (pred, timeoutMs = 3000) =>
          new Promise((ok, fail) => {
            const deadline = setTimeout(() => fail(new Error(`no matching message; got ${JSON.stringify(messages.map((x) => x.event))}`)), timeoutMs);
            const check = () => {
              const found = messages.find(pred);
              if (found) {
                clearTimeout(deadline);
                ok(found);
              } else waiters.push(check);
            };
            check();
          }),
        close: () => req.destroy(),
      };
      readers.push(reader);
      resolve(reader);
    });
    req.on('error', reject);
  });
}

export function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let s = '';
        res.on('data', (c) => (s += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(s) as Record<string, unknown> }));
      })
      .on('error', reject);
  });
}
