import type { Migration } from '../migrate.js';

/**
 * Erasure and retention (PRODUCT.md §12, src/modules/privacy, src/modules/retention):
 * - accounts.retention_*_days: the `retention` setting (NULL keeps forever);
 * - privacy_keys: one secret per account keying the `erased-<hash>` that
 *   replaces an erased number (the same number gives the same hash within an
 *   account, never across accounts, and cannot be guessed from the number alone);
 * - the indexes the retention job walks: recordings by time, the outbox by call.
 */
export const migration: Migration = {
  id: '095_privacy_retention',
  up() {
    return `
ALTER TABLE accounts ADD COLUMN retention_call_days INTEGER;
ALTER TABLE accounts ADD COLUMN retention_recording_days INTEGER;
ALTER TABLE accounts ADD COLUMN retention_audit_days INTEGER;
CREATE TABLE privacy_keys (
  account_id BIGINT PRIMARY KEY,
  secret TEXT NOT NULL
);
CREATE INDEX call_recordings_at ON call_recordings (account_id, at);
CREATE INDEX webhook_deliveries_call ON webhook_deliveries (account_id, call_id);
CREATE INDEX originated_calls_customer ON originated_calls (account_id, customer);`;
  },
};
