import type { Migration } from '../migrate.js';

/**
 * FR_CAN_FR_PM_N bookings (src/modules/analysis/rollup/rollup-batch.ts): for each
 * unanswered call whose retry was answered, the roll-up cells its flag was
 * added to (UTC hour, direction, [dim, key] pairs as JSON), so the flag can be
 * taken out exactly when either call changes, whatever order they arrive in.
 */
export const migration: Migration = {
  id: '041_analysis_retry_flags',
  up() {
    return `
CREATE TABLE analysis_retry_flags (
  account_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  hour BIGINT NOT NULL,
  direction TEXT NOT NULL,
  cells TEXT NOT NULL,
  PRIMARY KEY (account_id, call_id)
);
`;
  },
};
