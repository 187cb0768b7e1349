import type { Migration } from '../migrate.js';

/**
 * A change mark per account and UTC day of the report roll-ups
 * (src/modules/report/answers/): every flush of report_queue / report_agent
 * rows (report/rollup/report-sinks.ts) sets a new random mark on the UTC
 * days its rows fall in, in the flush's transaction. A node keeps the
 * answer rows of whole local days in memory and uses them only while the
 * marks of the UTC days they overlap are unchanged, so an acknowledged
 * ingest or late event on any node is in the next answer. A day without a
 * row reads as mark 0.
 */
export const migration: Migration = {
  id: '110_report_versions',
  up() {
    return `
CREATE TABLE report_versions (
  account_id BIGINT NOT NULL,
  utc_day BIGINT NOT NULL,
  version BIGINT NOT NULL,
  PRIMARY KEY (account_id, utc_day)
);`;
  },
};
