import { describe, expect, it } from 'vitest';
import type { AnalysisQuery } from '../query/request.js';
import type { DataStream } from '../../../http/answer.js';
import { IX, NCOLS } from '../rollup/counters.js';
import { bucketFragment, cell, type Grid } from './hits-json.js';
import { fragmentDay, keyMajorJson, type KeyedDay } from './key-major-json.js';
import { ChunkPool, piecesOrStream } from '../../../http/chunk-pool.js';

const q: AnalysisQuery = { breakDown: 'agent', display: 'hour', multi: true, fields: [{ name: 'TC', code: 'TC' }], range: null, filters: {} };

/** One day with `keys` keys, each with one bucket of TC `tc(key)` (0: not counted), counting the keys written. */
function countingDay(label: string, keys: number, tc: (key: number) => number, written: string[]): KeyedDay {
  const v = new Array<number>(NCOLS + 1).fill(0);
  return {
    *keys() {
      for (let k = 1; k <= keys; k++) yield String(k);
    },
    writeKey(key, out) {
      if (Number(key) > keys) return;
      written.push(key);
      v[IX.tc] = tc(Number(key));
      out.bucket(label, v);
    },
  };
}

const text = (chunks: Iterable<Buffer> | DataStream) => Buffer.concat([...('chunks' in chunks ? chunks.chunks : chunks)]).toString('utf8');

const pool = new ChunkPool();

describe('keyMajorJson', () => {
  it('writes each key with its buckets of every day in time order, numeric keys in numeric order, keys without a bucket left out', () => {
    const g: Grid = new Map();
    cell(g, '10', '2026-01-01 01:00')[IX.tc] = 4;
    cell(g, '2', '2026-01-01 02:00')[IX.tc] = 1;
    const written: string[] = [];
    const days = [fragmentDay(bucketFragment(q, g)), countingDay('2026-01-02 00:00', 3, (k) => (k === 3 ? 0 : k), written)];
    expect(JSON.parse(text(keyMajorJson(q, days, pool)))).toEqual({
      '1': { '2026-01-02 00:00': { TC: 1 } },
      '2': { '2026-01-01 02:00': { TC: 1 }, '2026-01-02 00:00': { TC: 2 } },
      '10': { '2026-01-01 01:00': { TC: 4 } },
    });
  });

  it('writes nothing when no key has a bucket (the caller answers 1586)', () => {
    expect([...keyMajorJson(q, [countingDay('2026-01-01 00:00', 5, () => 0, [])], pool)]).toEqual([]);
    expect(piecesOrStream(keyMajorJson(q, [countingDay('2026-01-01 00:00', 5, () => 0, [])], pool), pool)).toBeNull();
  });

  it('writes keys only as chunks are pulled: a large answer is never whole in memory', () => {
    const written: string[] = [];
    // 20,000 keys of ~30 bytes: ~600 kB in all.
    const chunks = keyMajorJson(q, [countingDay('2026-01-01 00:00', 20_000, () => 7, written)], pool);
    const first = chunks.next();
    expect(first.done).toBe(false);
    expect(first.value!.length).toBeGreaterThanOrEqual(64 * 1024);
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(5_000);
    const all = JSON.parse(text([first.value!, ...chunks])) as Record<string, unknown>;
    expect(Object.keys(all)).toHaveLength(20_000);
  });

  it('answers a small answer as its pieces and a large one as a stream that writes the rest only when pulled', () => {
    const small = piecesOrStream(keyMajorJson(q, [countingDay('2026-01-01 00:00', 100, () => 1, [])], pool), pool);
    expect(Array.isArray(small)).toBe(true);
    expect(Object.keys(JSON.parse(text(small!)) as object)).toHaveLength(100);
    const written: string[] = [];
    const large = piecesOrStream(keyMajorJson(q, [countingDay('2026-01-01 00:00', 50_000, () => 1, written)], pool), pool);
    expect(Array.isArray(large)).toBe(false);
    const before = written.length;
    expect(before).toBeLessThan(50_000);
    expect(Object.keys(JSON.parse(text(large!)) as object)).toHaveLength(50_000);
    expect(written.length).toBe(50_000);
  });
});
