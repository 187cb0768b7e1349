import { expect } from 'vitest';
import type { Harness } from '../helpers/harness.js';

let seq = 0;

/** An event at Unix time `ts` with a fresh eventId. */
export function at(ts: number, type: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { eventId: `r${++seq}-${Math.random().toString(36).slice(2, 7)}`, type, ts, ...fields };
}

/** Ingests and asserts every event was accepted. */
export async function feed(h: Harness, ssid: string, events: Array<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    const res = await h.post('/api/v2/events/ingest', { ssid, events: events.slice(i, i + 1000) });
    const data = res.body.data as { accepted: number; errors: unknown[] };
    expect(data.errors, JSON.stringify(data.errors)).toEqual([]);
  }
}

export async function report<T = Record<string, unknown>>(h: Harness, name: string, body: Record<string, unknown>): Promise<T[]> {
  const res = await h.post(`/api/v2/report/${name}`, body);
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data as T[];
}

/** Seconds of a UTC date-time. */
export const utc = (y: number, mo: number, d: number, hh = 0, mi = 0, ss = 0) => Date.UTC(y, mo - 1, d, hh, mi, ss) / 1000;
