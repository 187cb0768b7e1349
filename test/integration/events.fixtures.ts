import { expect } from 'vitest';
import type { Harness } from '../helpers/harness.js';

/*
 * Shared helpers of the telephony-event suites (events, agent-live, queue,
 * takeover, stream): a scripted event source whose times follow h.clock.
 */

let eventSeq = 0;

export interface IngestAnswer {
  accepted: number;
  duplicates: number;
  errors: Array<{ index: number; code: number; message: string }>;
}

/** Unix seconds of the harness clock. */
export function nowSec(h: Harness): number {
  return h.clock.now() / 1000;
}

/** Builds one event at the harness clock's time (or `ts`), with a fresh eventId. */
export function ev(h: Harness, type: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { eventId: `e${++eventSeq}-${Math.random().toString(36).slice(2, 8)}`, type, ts: nowSec(h), ...fields };
}

export async function ingest(h: Harness, ssid: string, events: unknown[]): Promise<IngestAnswer> {
  const res = await h.post('/api/v2/events/ingest', { ssid, events });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data as IngestAnswer;
}

/** Ingests and asserts every event was accepted. */
export async function ingestOk(h: Harness, ssid: string, events: unknown[]): Promise<void> {
  const out = await ingest(h, ssid, events);
  expect(out.errors, JSON.stringify(out.errors)).toEqual([]);
  expect(out.accepted).toBe(events.length);
}

/** Advances the harness clock by `secs` seconds. */
export function advance(h: Harness, secs: number): void {
  h.clock.advance(secs * 1000);
}
