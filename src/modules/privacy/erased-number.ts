import { createHmac, randomBytes } from 'node:crypto';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';

/**
 * The account's erasure key, made on first use (two nodes racing: the first
 * insert wins, both read it back). Kept in the database so every node gives a
 * number the same replacement.
 */
async function accountKey(tx: Queryable, accountId: number): Promise<string> {
  const t = tenant(tx, accountId);
  await t.run('INSERT INTO privacy_keys (account_id, secret) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING', [randomBytes(32).toString('base64url')]);
  const row = await t.get<{ secret: string }>('SELECT secret FROM privacy_keys WHERE account_id = $1');
  return row!.secret;
}

/**
 * `erased-<hash>`: a keyed hash (HMAC-SHA-256, 64 bits shown) of the
 * normalised number. The same number gives the same replacement within an
 * account, so repeat-caller counts stay right; without the account's key it
 * cannot be reversed by hashing every possible number.
 */
export async function erasedNumber(tx: Queryable, accountId: number, number: string): Promise<string> {
  const key = await accountKey(tx, accountId);
  return `erased-${createHmac('sha256', key).update(number).digest('hex').slice(0, 16)}`;
}
