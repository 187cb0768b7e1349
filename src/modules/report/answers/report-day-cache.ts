import { TokenedCache } from '../../../cache/tokened-cache.js';

/**
 * Answer rows of whole local days, kept in memory per node (the analysis
 * module keeps its own the same way): a month of every group by hour is
 * 14,400 rows, 4.7 MB of JSON to read, sum and write, yet 29 of its 30 days
 * have not changed since the last time anyone asked. An entry is kept under
 * its token, the change marks of the UTC days the day overlaps
 * (report_versions, set anew by every roll-up flush on any node in its own
 * transaction): a request reads the marks first and uses an entry only
 * under the current ones.
 *
 * Least recently used entries go first once the byte budget
 * (`REPORT_CACHE_MB`) is spent; an entry larger than the budget is not kept.
 */
export class ReportDayCache<F extends { readonly size: number }> extends TokenedCache<F> {
  constructor(maxBytes: number) {
    super(maxBytes, (f) => f.size);
  }
}
