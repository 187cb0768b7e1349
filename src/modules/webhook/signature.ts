import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * The Standard Webhooks convention (https://www.standardwebhooks.com):
 * secrets `whsec_<base64>`, the HMAC-SHA256 keyed with the decoded secret
 * over `<id>.<timestamp>.<body>`, sent as `v1,<base64>`.
 */

const SECRET_PREFIX = 'whsec_';

/** A new secret: `whsec_` + base64 of 32 random bytes (PRODUCT.md §9). */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The `webhook-signature` header value for one attempt. */
export function sign(secret: string, msgId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64');
}

/**
 * `webhook-id`: the same for a call and a subscription on every attempt and
 * every node (derived, not stored), so a receiver deduplicates retries.
 */
export function messageId(accountId: number, webhookId: number, callId: string): string {
  const digest = createHash('sha256').update(`${accountId}\u0000${webhookId}\u0000${callId}`).digest('base64url');
  return `msg_${digest.slice(0, 27)}`;
}
