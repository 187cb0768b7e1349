import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../db/types.js';
import { RecordingKeyRepository } from './callreport.repository.js';

/** A recording token is valid this long after it was issued (PRODUCT.md §9). */
export const RECORDING_TOKEN_TTL_SECS = 24 * 3600;

/**
 * Tokens of `GET /api/v2/recording/directstream/<token>/<path>`: `<issued
 * Unix seconds, base 36>.<HMAC-SHA256 of "issued:path", base64url>`. Bound to
 * the path (another path fails) and to the time (24 h). The key is one row
 * of `recording_keys`, made by the first node that needs it, so every node
 * of one database accepts every node's tokens. The token holds no `/` or
 * `*`, so the vendor's `<token>*<segments>` form splits unambiguously.
 */
export class RecordingTokens {
  private key: Promise<Buffer> | null = null;

  constructor(private readonly db: Queryable) {}

  private signingKey(): Promise<Buffer> {
    this.key ??= this.loadKey().catch((err: unknown) => {
      this.key = null;
      throw err;
    });
    return this.key;
  }

  private async loadKey(): Promise<Buffer> {
    return Buffer.from(await new RecordingKeyRepository(this.db).ensure(randomBytes(32).toString('base64')), 'base64');
  }

  private static mac(key: Buffer, issued: string, path: string): Buffer {
    return createHmac('sha256', key).update(`${issued}:${path}`).digest();
  }

  async sign(path: string, nowSecs: number): Promise<string> {
    const issued = Math.floor(nowSecs).toString(36);
    return `${issued}.${RecordingTokens.mac(await this.signingKey(), issued, path).toString('base64url')}`;
  }

  /** True when `token` was issued for `path` less than 24 h before `nowSecs`. */
  async verify(token: string, path: string, nowSecs: number): Promise<boolean> {
    const m = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m) return false;
    const issued = parseInt(m[1]!, 36);
    if (!(nowSecs - issued < RECORDING_TOKEN_TTL_SECS) || issued > nowSecs + 300) return false;
    // Compared as text, not as decoded bytes: the 43rd character carries 2 unused bits, so four spellings decode alike; only the one we issue is accepted.
    const given = Buffer.from(m[2]!, 'latin1');
    const want = Buffer.from(RecordingTokens.mac(await this.signingKey(), m[1]!, path).toString('base64url'), 'latin1');
    return given.length === want.length && timingSafeEqual(given, want);
  }
}
