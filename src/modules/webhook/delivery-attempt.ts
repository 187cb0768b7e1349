import type { Clock } from '../../clock.js';
import type { ClaimedDelivery } from './delivery-queue.repository.js';
import { nextAttemptAt, verdictOf } from './retry-schedule.js';
import { messageId, sign } from './signature.js';
import type { HttpOutcome, WebhookHttp } from './webhook-http.js';
import type { DeliveryStatus, WebhookRow } from './webhook.repository.js';

export interface Attempt {
  at: number;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  response: string | null;
}

/** What a round decided for one claimed delivery. */
export interface Outcome {
  d: ClaimedDelivery;
  attempt: Attempt | null;
  next: { status: DeliveryStatus; attempts: number; nextAt: number };
  disable?: boolean;
}

/** One signed POST and what it means for the delivery: the attempt to log and what comes next (retry-schedule.ts). */
export async function attemptDelivery(http: WebhookHttp, clock: Clock, d: ClaimedDelivery, hook: WebhookRow, body: string): Promise<Outcome> {
  const at = Math.floor(clock.now());
  const msgId = messageId(d.account_id, d.webhook_id, d.call_id);
  const timestamp = Math.floor(at / 1000);
  const out: HttpOutcome = await http.request(
    'POST',
    hook.url,
    {
      'content-type': 'application/json',
      'webhook-id': msgId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(hook.secret, msgId, timestamp, body),
    },
    body,
  );
  const after = Math.floor(clock.now());
  const verdict = verdictOf(out.httpStatus, out.retryAfter, after);
  const attempts = d.attempts + 1;
  const nextAt = nextAttemptAt(attempts, after, verdict, Math.random());
  const status: DeliveryStatus = verdict.kind === 'delivered' ? 'delivered' : nextAt === null ? 'failed' : 'pending';
  return {
    d,
    attempt: {
      at,
      httpStatus: out.httpStatus,
      durationMs: out.durationMs,
      error: out.error ?? (verdict.kind === 'delivered' ? null : `HTTP ${out.httpStatus}`),
      response: out.response,
    },
    next: { status, attempts, nextAt: nextAt ?? after },
    disable: verdict.kind === 'disable',
  };
}
