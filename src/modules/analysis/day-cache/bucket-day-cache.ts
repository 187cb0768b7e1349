import { TokenedCache } from '../../../cache/tokened-cache.js';
import type { BucketFragment } from '../wire/hits-json.js';

/**
 * Answers of whole days, kept in memory per node: a month of hours by agent
 * is 144,000 buckets (25 MB) to read, sum and write, yet 29 of its 30 days
 * have not changed since the last time anyone asked (today is kept too, and
 * replaced whenever ingest changes it). An entry is a
 * day's written buckets (hits-json.ts, BucketFragment) under the day's
 * token: the change marks of the UTC days it covers (analysis_versions,
 * set anew by every roll-up flush in the flush's own transaction, on any
 * node). A request reads the tokens first, then uses an
 * entry only when its token is the current one, so an acknowledged ingest
 * or late event is in the next answer on every node.
 *
 * Least recently used entries go first once the byte budget is spent
 * (`ANALYSIS_CACHE_MB`); a day larger than the whole budget is not kept.
 */
export class BucketDayCache extends TokenedCache<BucketFragment> {
  constructor(maxBytes: number) {
    // The bytes, and about 128 bytes per key of the span table.
    super(maxBytes, (f) => f.bytes.length + f.keys.size * 128);
  }
}
