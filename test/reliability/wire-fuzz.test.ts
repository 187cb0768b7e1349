import net from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/databases.js';
import { startServerProcess } from '../helpers/process.js';

/**
 * Garbage on the wire does not take a real server process down: malformed
 * request lines, unknown methods, oversized headers and bodies, broken
 * chunked encoding, bodies that stop half-way, connections dropped
 * mid-request, and random bytes — many at once. Afterwards the process is
 * alive, /healthz answers 200 and a login still works.
 */

const CRLF = '\r\n';
const head = (lines: string[]) => lines.join(CRLF) + CRLF + CRLF;

const RAW: string[] = [
  'GARBAGE\r\n\r\n',
  head(['GET / HTTP/9.9', 'Host: x']),
  head(['BREW /api/v2/auth/login HTTP/1.1', 'Host: x']),
  head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', `X-Big: ${'a'.repeat(100_000)}`]),
  head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', 'Content-Length: 10']) + '{"a"',
  head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', 'Content-Length: -1']),
  head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', 'Content-Length: 5', 'Content-Length: 7']) + '{}',
  head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked']) + 'zz\r\n{}\r\n0\r\n\r\n',
  head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked', 'Content-Length: 3']) + '2\r\n{}\r\n0\r\n\r\n',
  head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', `Content-Length: ${3 * 1024 * 1024}`]) + 'x'.repeat(3 * 1024 * 1024),
  head(['POST /api/v2/auth/login?%zz=%%% HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 2']) + '{}',
  head(['POST /api/v2/../../etc/passwd HTTP/1.1', 'Host: x', 'Content-Length: 2']) + '{}',
  head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', 'Content-Type: application/json; charset=utf-16', 'Content-Length: 4']) + '\xff\xfe{}',
  head(['GET /api/v2/stream?ssid=%00%ff HTTP/1.1', 'Host: x']),
  head(['GET /api/v2/stream HTTP/1.1', 'Host: x', 'Authorization: Bearer \u0000']),
  head(['OPTIONS /api/v2/auth/login HTTP/1.1', 'Host: x', 'Origin: null', 'Access-Control-Request-Method: POST']),
];

/** Writes `data` on a fresh connection and reads until the server closes it or `ms` pass. */
function sendRaw(port: number, data: string | Buffer, ms = 1500, cutAfter?: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    const done = () => {
      socket.destroy();
      resolve(got);
    };
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('error', done);
    socket.on('close', done);
    setTimeout(done, ms);
    socket.on('connect', () => {
      const buf = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
      socket.write(cutAfter === undefined ? buf : buf.subarray(0, cutAfter));
      if (cutAfter !== undefined) socket.destroy();
    });
  });
}

describe('wire fuzz against a real server process', () => {
  it('survives malformed HTTP, oversized and truncated requests and random bytes', async () => {
    const t = await freshDatabase('sqlite');
    await t.db.close();
    const p = await startServerProcess({ env: t.env });
    try {
      const answers = await Promise.all(RAW.map((r) => sendRaw(p.port, r)));
      // Where the server answers over HTTP, it is never a 5xx.
      for (const [i, a] of answers.entries()) expect(/^HTTP\/1\.1 5\d\d/.test(a), `${RAW[i]!.slice(0, 60)} → ${a.slice(0, 120)}`).toBe(false);
      const random = fc.sample(fc.uint8Array({ minLength: 1, maxLength: 4096 }), { numRuns: 60, seed: 11 });
      await Promise.all(
        random.map((bytes, i) =>
          sendRaw(p.port, Buffer.from(i % 2 ? Buffer.concat([Buffer.from('POST /api/v2/auth/login HTTP/1.1\r\n'), bytes]) : bytes), 800),
        ),
      );
      // Requests cut off half-way, many at once.
      const login =
        head(['POST /api/v2/auth/login HTTP/1.1', 'Host: x', 'Content-Length: 60']) + '{"username":"operator","password":"operator-password"}      ';
      await Promise.all(Array.from({ length: 50 }, (_, i) => sendRaw(p.port, login, 300, (i * 7) % login.length)));
      expect(p.alive()).toBe(true);
      expect((await p.get('/healthz')).http).toBe(200);
      const ok = await p.post('/api/v2/auth/login', { username: 'operator', password: 'operator-password' });
      expect(ok.body?.status, ok.raw).toBe('success');
    } finally {
      await p.kill();
      await t.drop();
    }
    expect(p.output()).not.toMatch(/uncaught|unhandled|FATAL/i);
  }, 60_000);
});
