import type { MarkTable } from '../../../db/rollup-write.js';

/**
 * The report roll-ups' change marks (report_versions, migration 110): a new
 * random mark per UTC day whose report_* rows changed, set by writeRollup in
 * the same call as the rows (report-sinks.ts). Answers of local days kept on
 * any node (answers/report-day-cache.ts) are used only while the marks of the UTC
 * days they overlap are unchanged.
 */
export const REPORT_MARKS: readonly [MarkTable] = [{ table: 'report_versions', column: 'utc_day', unitSecs: 86_400 }];

/** The UTC day (days since 1970-01-01) of a Unix time. */
export const utcDayOf = (ts: number) => Math.floor(ts / 86400);
