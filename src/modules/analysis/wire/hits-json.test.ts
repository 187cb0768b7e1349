import { describe, expect, it } from 'vitest';
import type { AnalysisQuery } from '../query/request.js';
import { IX, NCOLS } from '../rollup/counters.js';
import { bucketFragment, cell, hitsDataJson, joinFragments, type Grid } from './hits-json.js';

function query(over: Partial<AnalysisQuery>): AnalysisQuery {
  return { breakDown: 'campaign', display: 'date', multi: false, fields: [{ name: 'TC', code: 'TC' }], range: null, filters: {}, ...over };
}

function grid(entries: Array<[string, string, Partial<Record<'tc' | 'ca' | 'ring_sum' | 'fr_can', number>>, number?]>): Grid {
  const g: Grid = new Map();
  for (const [key, bucket, cols, ghosts] of entries) {
    const v = cell(g, key, bucket);
    for (const [c, n] of Object.entries(cols)) v[IX[c as keyof typeof IX]] = n;
    v[NCOLS] = ghosts ?? 0;
  }
  return g;
}

/** The answer's data as text (null: nothing counted). */
function dataText(q: AnalysisQuery, g: Grid): string | null {
  const pieces = hitsDataJson(q, g);
  return pieces && Buffer.concat(pieces).toString();
}

describe('hitsDataJson', () => {
  it('escapes keys: campaign ids and DIDs are caller-chosen strings', () => {
    const text = dataText(query({}), grid([['a"b\\c\u2028', '', { tc: 2 }]]))!;
    expect(JSON.parse(text)).toEqual({ 'a"b\\c\u2028': { TC: 2 } });
  });

  it('writes renamed fields, nulls for undefined averages, the ghost slot for GH_UC, and numeric keys in numeric order', () => {
    const q = query({
      breakDown: 'agent',
      fields: [
        { name: 'TH', code: 'TC' },
        { name: 'avgRingTime', code: 'avgRingTime' },
        { name: 'avgHoldTime', code: 'avgHoldTime' },
        { name: 'GH_UC', code: 'GH_UC' },
      ],
    });
    const text = dataText(
      q,
      grid([
        ['10', '', { tc: 3, ring_sum: 10 }, 1],
        ['9', '', { tc: 1, ring_sum: 0 }],
      ]),
    )!;
    expect(JSON.parse(text)).toEqual({
      '9': { TH: 1, avgRingTime: 0, avgHoldTime: null, GH_UC: 0 },
      '10': { TH: 3, avgRingTime: 3.33, avgHoldTime: null, GH_UC: 1 },
    });
    expect(text.indexOf('"9"')).toBeLessThan(text.indexOf('"10"'));
  });

  it('nests buckets in label order under multi, {total} for disPlay total, and leaves out empty buckets', () => {
    const g = grid([
      ['c1', '2026-11-02', { tc: 1 }],
      ['c1', '2026-11-01', { tc: 0, fr_can: 1 }],
      ['c1', '2026-11-03', {}],
    ]);
    const text = dataText(query({ multi: true }), g)!;
    expect(JSON.parse(text)).toEqual({ c1: { '2026-11-01': { TC: 0 }, '2026-11-02': { TC: 1 } } });
    expect(text.indexOf('2026-11-01')).toBeLessThan(text.indexOf('2026-11-02'));
    expect(JSON.parse(dataText(query({ multi: true, display: 'total' }), grid([['c1', '', { tc: 4 }]]))!)).toEqual({ c1: { total: { TC: 4 } } });
  });

  it('is null when no bucket has a hit (the service answers 1586)', () => {
    expect(dataText(query({}), grid([['c1', '', {}]]))).toBeNull();
    expect(dataText(query({}), new Map())).toBeNull();
  });
});

describe('joinFragments', () => {
  it('joins days written apart into the answer of the whole range (keys merged and ordered, days in order)', () => {
    const q = query({ breakDown: 'agent', multi: true, display: 'hour' });
    const day1 = grid([
      ['10', '2026-11-01 09:00', { tc: 1 }],
      ['9', '2026-11-01 10:00', { tc: 2 }],
      ['11', '2026-11-01 11:00', {}],
    ]);
    const day2 = grid([
      ['10', '2026-11-02 00:00', { tc: 3 }],
      ['12', '2026-11-02 01:00', { tc: 4 }],
    ]);
    const joined = Buffer.concat(joinFragments([bucketFragment(q, day1), bucketFragment(q, new Map()), bucketFragment(q, day2)])!);
    const whole = grid([
      ['10', '2026-11-01 09:00', { tc: 1 }],
      ['9', '2026-11-01 10:00', { tc: 2 }],
      ['11', '2026-11-01 11:00', {}],
      ['10', '2026-11-02 00:00', { tc: 3 }],
      ['12', '2026-11-02 01:00', { tc: 4 }],
    ]);
    expect(joined.toString()).toBe(dataText(q, whole));
    expect(Object.keys(JSON.parse(joined.toString()))).toEqual(['9', '10', '12']);
  });

  it('gathers small spans into few pieces and keeps large ones as views of the kept bytes', () => {
    const q = query({ breakDown: 'agent', multi: true, display: 'date' });
    const small = [grid([]), grid([])];
    const whole: Grid = new Map();
    for (let k = 1; k <= 300; k++) {
      for (const [i, day] of ['2026-11-01', '2026-11-02'].entries()) {
        cell(small[i]!, String(k), day)[IX.tc] = k;
        cell(whole, String(k), day)[IX.tc] = k;
      }
    }
    const fragments = small.map((g) => bucketFragment(q, g));
    const pieces = joinFragments(fragments)!;
    expect(pieces.length).toBeLessThanOrEqual(3);
    expect(Buffer.concat(pieces).toString()).toBe(dataText(q, whole));
    const big: Grid = new Map();
    for (let b = 0; b < 200; b++) cell(big, '1', `bucket-${String(b).padStart(3, '0')}`)[IX.tc] = 1; // one key, 200 buckets: a span of kilobytes
    const bigFragment = bucketFragment(q, big);
    expect(joinFragments([bigFragment])!.some((p) => p.buffer === bigFragment.bytes.buffer)).toBe(true);
  });

  it('is null when no day has a counted bucket', () => {
    const q = query({ multi: true });
    expect(joinFragments([bucketFragment(q, grid([['c1', '2026-11-01', {}]])), bucketFragment(q, new Map())])).toBeNull();
    expect(joinFragments([])).toBeNull();
  });
});
