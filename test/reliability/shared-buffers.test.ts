import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { CallRecord } from '../../src/modules/calls/call-record.js';
import { createAgent } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { D, call } from '../integration/analysis.fixtures.js';

/**
 * No buffer shared by two answers (issue #33, http/chunk-pool.ts): two
 * tenants' large answers — hours by agent over two days (written in pooled
 * chunks), the agent report by quarter hour (pooled chunks and kept views),
 * the call-report CSV — asked many times at once, some readers slow, some
 * asking for gzip or Brotli, each compared byte for byte with the same
 * answer asked alone. Released buffers are poisoned (POISON_RELEASED_CHUNKS),
 * so a chunk written over while still unsent shows as 0xDB in an answer; and
 * the pool refused no release.
 *
 * The node under test is built as deployed (no response validation, which
 * gathers streamed answers whole), listening on a real socket.
 */
forEachDatabase('no buffer shared by two answers', (use) => {
  let base: string;
  let chunks: { refused: Readonly<Record<string, number>> };
  const tenants: Array<Session & { accountId: number }> = [];

  beforeAll(async () => {
    const h = use();
    for (const pattern of [2, 3]) {
      const t = await createTenant(h);
      tenants.push(t);
      const agents: number[] = [];
      for (let i = 0; i < 40; i++) agents.push((await createAgent(h, t)).agentId);
      const records: CallRecord[] = [];
      for (const agent of agents)
        for (let hour = 0; hour < 48; hour++)
          records.push(
            call(t.accountId, `t${pattern}-${agent}-${hour}`, D + hour * 3600 + agent * 7, {
              // Each tenant its own answers (and its own caller), so one tenant's bytes in the other's answer show.
              offers: [{ agent, ring: 3 + (hour % pattern), answered: hour % pattern === 0 }],
              caller: `91980000${pattern}${String(agent).padStart(3, '0')}`,
              talkSecs: (agent * pattern) % 97,
            }),
          );
      await h.db.transaction(async (tx) => {
        for (let i = 0; i < records.length; i += 200) await h.services.history.record(tx, t.accountId, records.slice(i, i + 200));
      });
    }
    const db = h.testDb.connect();
    const built = await buildApp({ config: { ...h.ctx.config, webhookDelivery: false, poisonReleasedChunks: true }, db, clock: h.clock });
    chunks = built.services.chunks;
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    return async () => {
      await built.app.close();
      await db.close();
    };
  });

  type Ask = { name: string; method: 'POST' | 'GET'; path: string; body?: object };
  const asks = (t: Session): Ask[] => [
    {
      name: 'hours by agent',
      method: 'POST',
      path: '/api/v2/analysis/hits',
      body: {
        ssid: t.ssid,
        breakDown: 'agentId',
        disPlay: 'hour',
        multi: true,
        filter: [{ key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-11-2026 23:59:59' }],
      },
    },
    { name: 'agent report', method: 'POST', path: '/api/v2/report/agent', body: { ssid: t.ssid, from: '01-10-2026', to: '01-11-2026', interval: '15m' } },
    {
      name: 'queue report CSV',
      method: 'POST',
      path: '/api/v2/report/queue',
      body: { ssid: t.ssid, from: '01-10-2026', to: '01-11-2026', interval: '15m', format: 'csv' },
    },
    { name: 'call-report export', method: 'GET', path: `/api/v2/CallReport/export?ssid=${t.ssid}&from=01-10-2026%2000:00:00&to=01-11-2026%2023:59:59` },
  ];

  /** The answer's bytes, decoded; `slow`: the reader takes its bytes a little at a time, letting others' chunks go by. */
  function fetchBytes(ask: Ask, encoding: 'identity' | 'gzip' | 'br', slow: boolean): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const payload = ask.body ? JSON.stringify(ask.body) : undefined;
      const req = request(
        `${base}${ask.path}`,
        {
          method: ask.method,
          headers: { 'accept-encoding': encoding, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => {
            parts.push(part);
            if (slow) {
              // A client on a slow line: the server's writes back up while the others' answers are written.
              res.pause();
              setTimeout(() => res.resume(), 2);
            }
          });
          res.on('error', reject);
          res.on('end', () => {
            const raw = Buffer.concat(parts);
            const how = res.headers['content-encoding'];
            resolve(how === 'gzip' ? gunzipSync(raw) : how === 'br' ? brotliDecompressSync(raw) : raw);
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  it('two tenants asked at once, slow and fast, compressed or not, each get exactly the answer they get alone', async () => {
    const alone = new Map<string, Buffer>();
    for (const [i, t] of tenants.entries())
      for (const ask of asks(t)) {
        const bytes = await fetchBytes(ask, 'identity', false);
        expect(bytes.includes(0xdb), `${ask.name}: no poison alone`).toBe(false);
        alone.set(`${i} ${ask.name}`, bytes);
      }
    // The answers are large and differ between the tenants (else the comparison proves nothing).
    expect(alone.get('0 hours by agent')!.length).toBeGreaterThan(256 * 1024);
    expect(alone.get('0 agent report')!.length).toBeGreaterThan(256 * 1024);
    for (const ask of asks(tenants[0]!)) expect(alone.get(`0 ${ask.name}`)!.equals(alone.get(`1 ${ask.name}`)!), ask.name).toBe(false);

    const encodings = ['identity', 'gzip', 'br'] as const;
    for (let round = 0; round < 2; round++) {
      const runs: Array<Promise<void>> = [];
      let n = 0;
      for (const [i, t] of tenants.entries())
        for (const ask of asks(t))
          for (const encoding of encodings)
            for (const slow of [false, true]) {
              const key = `${i} ${ask.name}`;
              n += 1;
              runs.push(
                fetchBytes(ask, encoding, slow).then((bytes) => {
                  expect(
                    bytes.equals(alone.get(key)!),
                    `${key} (${encoding}${slow ? ', slow' : ''}): ${bytes.length} bytes, alone ${alone.get(key)!.length}`,
                  ).toBe(true);
                }),
              );
            }
      expect(n).toBe(48);
      await Promise.all(runs);
    }
    expect(chunks.refused).toEqual({ twice: 0, stale: 0, shared: 0 });
  });
});
