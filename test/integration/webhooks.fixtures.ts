import { createHmac, timingSafeEqual } from 'node:crypto';
import { expect } from 'vitest';
import type { Session } from '../helpers/factories.js';
import type { Harness } from '../helpers/harness.js';
import type { Received } from '../helpers/webhook-receiver.js';
import { advance, ev, ingestOk } from './events.fixtures.js';

/**
 * Verifies a delivery as the Standard Webhooks text describes it, written
 * here from the convention and not from src/: the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`, the key the base64 part of
 * the secret after `whsec_`, HMAC-SHA256, base64; the header holds
 * space-separated `v1,<signature>` entries, compared in constant time.
 */
export function verifyStandardWebhook(secret: string, r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const timestamp = String(r.headers['webhook-timestamp']);
  const key = Buffer.from(secret.split('_')[1]!, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${r.body}`).digest();
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, sig] = entry.split(',');
      const given = Buffer.from(sig ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** One inbound call that ends unanswered (queued, 3 s, ended). */
export async function endCall(h: Harness, s: Session, callId: string, fields: Record<string, unknown> = {}): Promise<void> {
  await ingestOk(h, s.ssid, [ev(h, 'call.queued', { callId, caller: '919876543210', ...fields })]);
  advance(h, 3);
  await ingestOk(h, s.ssid, [ev(h, 'call.ended', { callId, reason: 'abandoned' })]);
}

export async function createHook(
  h: Harness,
  s: Session,
  body: Record<string, unknown>,
): Promise<{ webhookId: number; secret: string; status: string; lastError?: string }> {
  const res = await h.post('/api/v2/webhook/create', { ssid: s.ssid, ...body });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data as { webhookId: number; secret: string; status: string };
}

export interface DeliveryView {
  deliveryId: number;
  webhookId: number;
  callId: string;
  status: string;
  attempts: Array<{ at: number; httpStatus: number | null; durationMs: number; error: string | null; response: string | null }>;
}

export async function deliveries(h: Harness, s: Session, filter: Record<string, unknown> = {}): Promise<DeliveryView[]> {
  const res = await h.post('/api/v2/webhook/deliveries', { ssid: s.ssid, ...filter });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data as DeliveryView[];
}

/** The stored next attempt time (ms of the harness clock) of a delivery. */
export async function nextAt(h: Harness, deliveryId: number): Promise<number> {
  const row = await h.db.get<{ next_at: number }>('SELECT next_at FROM webhook_deliveries WHERE id = $1', [deliveryId]);
  return Number(row!.next_at);
}
