import http from 'node:http';
import zlib from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { installCompression } from '../../src/http/compression.js';
import { sendCompressedPieces } from '../../src/http/streamed-answer.js';
import { createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, openSse } from '../helpers/sse.js';

afterAll(closeReaders);

const BOTH = { 'accept-encoding': 'gzip, br' };

function decode(encoding: unknown, body: Buffer): string {
  if (encoding === 'br') return zlib.brotliDecompressSync(body).toString('utf8');
  if (encoding === 'gzip') return zlib.gunzipSync(body).toString('utf8');
  return body.toString('utf8');
}

async function get(h: Harness, url: string, headers: Record<string, string> = {}) {
  const res = await h.app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, headers: res.headers, raw: res.rawPayload };
}

async function post(h: Harness, url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await h.app.inject({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.statusCode, headers: res.headers, raw: res.rawPayload };
}

forEachDatabase('compression (Accept-Encoding)', (use) => {
  it('compresses the wallboard files with Brotli when gzip and br are both accepted, with gzip when only gzip is', async () => {
    const h = use();
    for (const url of ['/wallboard', '/wallboard/app.js', '/wallboard/wallboard.css', '/wallboard/wallboard-tv.css']) {
      const plain = await get(h, url);
      expect(plain.headers['content-encoding'], url).toBeUndefined();
      expect(plain.raw.length, url).toBeGreaterThan(1024);
      const br = await get(h, url, BOTH);
      expect(br.headers['content-encoding'], url).toBe('br');
      expect(br.headers.vary, url).toContain('accept-encoding');
      expect(br.raw.length, url).toBeLessThan(plain.raw.length / 2);
      expect(decode('br', br.raw), url).toBe(plain.raw.toString('utf8'));
      const gz = await get(h, url, { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding'], url).toBe('gzip');
      expect(decode('gzip', gz.raw), url).toBe(plain.raw.toString('utf8'));
      // The ETag still answers 304, with nothing to compress.
      const again = await get(h, url, { ...BOTH, 'if-none-match': String(plain.headers.etag) });
      expect(again.status, url).toBe(304);
    }
  });

  it('compresses a large JSON answer and leaves a small one as it is', async () => {
    const h = use();
    const t = await createTenant(h);
    for (let i = 0; i < 30; i++) await createGroup(h, t, { name: `Compressed group number ${i}` });
    const plain = await post(h, '/api/v2/group/list', { ssid: t.ssid });
    expect(plain.raw.length).toBeGreaterThan(1024);
    const packed = await post(h, '/api/v2/group/list', { ssid: t.ssid }, BOTH);
    expect(packed.headers['content-encoding']).toBe('br');
    expect(packed.raw.length).toBeLessThan(plain.raw.length);
    const answer = JSON.parse(decode('br', packed.raw)) as { status: string; data: unknown[] };
    expect(answer.status).toBe('success');
    expect(answer.data).toHaveLength(30);
    expect(answer).toEqual(JSON.parse(plain.raw.toString('utf8')));

    // Under 1 KB: sent as it is, whatever the client accepts.
    const small = await post(h, '/api/v2/account/getSettings', { ssid: t.ssid }, BOTH);
    expect(small.raw.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.raw.toString('utf8'))).toMatchObject({ status: 'success', code: 200 });
    // An error envelope too.
    const refused = await post(h, '/api/v2/group/list', { ssid: 'nope' }, BOTH);
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(refused.raw.toString('utf8'))).toEqual({ status: 'error', code: 1014, message: 'Invalid token' });
    // The OpenAPI document (hundreds of kB) and /metrics.
    const doc = await get(h, '/openapi.json', { 'accept-encoding': 'gzip' });
    expect(doc.headers['content-encoding']).toBe('gzip');
    expect((JSON.parse(decode('gzip', doc.raw)) as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('reads request bodies as before: a Content-Encoding header on a request is ignored (no 415 or 400)', async () => {
    const h = use();
    const res = await post(h, '/api/v2/auth/login', { username: 'nobody', password: 'wrong-password' }, { 'content-encoding': 'zstd' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.raw.toString('utf8'))).toMatchObject({ status: 'error', code: 1014 });
  });

  it('never compresses the event stream: messages arrive as plain text/event-stream', async () => {
    const h = use();
    const t = await createTenant(h);
    const url = `${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`;
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      const req = http.get(url, { headers: BOTH }, (res) => {
        resolve(res.headers);
        req.destroy();
      });
      req.on('error', reject);
    });
    expect(headers['content-type']).toMatch(/^text\/event-stream/);
    expect(headers['content-encoding']).toBeUndefined();
    const r = await openSse(url, BOTH);
    expect(r.status).toBe(200);
    expect((await r.next((m) => m.event === 'ready')).data).toEqual({ lstSync: 0 });
    await createGroup(h, t);
    r.close();
  });
});

describe('answers written as pieces (large analysis answers)', () => {
  const pieces = [Buffer.from('{"status":"success","code":200,"data":['), ...Array.from({ length: 200 }, (_, i) => Buffer.from(`${i},`)), Buffer.from('200]}')];
  const whole = Buffer.concat(pieces).toString('utf8');

  async function app() {
    const a = Fastify();
    await installCompression(a);
    a.get('/pieces', async (request, reply) => (sendCompressedPieces(request, reply, pieces) ? reply : whole));
    await a.ready();
    return a;
  }

  it('streams them through gzip or Brotli when the client accepts one, and declines otherwise', async () => {
    const a = await app();
    try {
      const br = await a.inject({ method: 'GET', url: '/pieces', headers: BOTH });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(decode('br', br.rawPayload)).toBe(whole);
      const gz = await a.inject({ method: 'GET', url: '/pieces', headers: { 'accept-encoding': 'gzip;q=1, identity;q=0.5' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(decode('gzip', gz.rawPayload)).toBe(whole);
      for (const headers of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'deflate' }]) {
        const plain = await a.inject({ method: 'GET', url: '/pieces', headers });
        expect(plain.headers['content-encoding']).toBeUndefined();
        expect(plain.body).toBe(whole);
      }
    } finally {
      await a.close();
    }
  });
});
