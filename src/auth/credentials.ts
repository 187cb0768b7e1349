import { fail } from '../errors/catalogue.js';
import type { Credentials } from './auth.service.js';

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/**
 * The credentials in a request body, by the spec's rules: `ssid`, or
 * `userId` + `token` together, never both forms (1000); a token without a
 * user id is 1002; anything else without usable credentials is 1014.
 */
export function credentialsFromBody(body: Record<string, unknown>): Credentials {
  const { ssid, userId, token } = body;
  if (present(ssid) && (present(userId) || present(token))) {
    throw fail(1000, 'send either ssid or userId and token, not both');
  }
  if (present(ssid)) {
    if (typeof ssid !== 'string') throw fail(1014);
    return { form: 'ssid', ssid };
  }
  if (present(token)) {
    if (!present(userId)) throw fail(1002);
    if (typeof token !== 'string' || (typeof userId !== 'string' && typeof userId !== 'number')) throw fail(1014);
    return { form: 'token', userId: String(userId), token };
  }
  throw fail(1014, 'no credentials');
}

/** Credentials of a GET request (the stream): query `ssid`, or `userId` + `token`, or `Authorization: Bearer <ssid>`. */
export function credentialsFromQuery(query: Record<string, unknown>, authorization: string | undefined): Credentials {
  if (typeof authorization === 'string' && /^Bearer\s+\S+/i.test(authorization)) {
    return { form: 'ssid', ssid: authorization.replace(/^Bearer\s+/i, '').trim() };
  }
  return credentialsFromBody(query);
}

/** The vendor's v3 query parameters (`POST /api/v3/clickToCall/para`): `user_id` and `token`, the token form only. */
export function credentialsFromUserIdToken(query: Record<string, unknown>): Credentials {
  const one = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
  const token = one(query.token);
  const userId = one(query.user_id);
  if (!present(token)) throw fail(1014, 'no credentials');
  if (!present(userId)) throw fail(1002);
  if (typeof token !== 'string' || typeof userId !== 'string') throw fail(1014);
  return { form: 'token', userId, token };
}
