import type { Migration } from '../migrate.js';

/**
 * A change counter per account and UTC day of the analysis roll-ups
 * (src/modules/analysis/day-cache.ts). Every roll-up flush bumps the days it
 * touched, in the same transaction, so a node may keep the answer of a past
 * day in memory and know, with one read of ≤ 32 rows, whether any node has
 * changed that day since (a late event on an old call does). Rows are never
 * deleted: a counter that went back to a value seen before could validate a
 * stale answer.
 */
export const migration: Migration = {
  id: '044_analysis_versions',
  up() {
    return `
CREATE TABLE analysis_versions (
  account_id BIGINT NOT NULL,
  utc_day BIGINT NOT NULL,
  version BIGINT NOT NULL,
  PRIMARY KEY (account_id, utc_day)
);`;
  },
};
