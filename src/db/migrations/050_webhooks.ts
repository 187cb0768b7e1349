import { columnTypes } from '../migrate.js';
import type { Migration } from '../migrate.js';

/**
 * Push-report webhooks (PRODUCT.md §9): the subscriptions, the outbox of
 * deliveries (one row per call and subscription, written in the transaction
 * that applies `call.ended`) and the log of attempts. `next_at` and
 * `lease_until` are milliseconds of the service's clock; a delivery is due
 * when it is pending, `next_at` has passed and no node holds a live lease.
 * `payload` is null until the first attempt freezes the report, so every
 * retry sends the same body.
 */
export const migration: Migration = {
  id: '050_webhooks',
  up(dialect) {
    const { autoId } = columnTypes(dialect);
    return `
CREATE TABLE webhooks (
  id ${autoId},
  account_id BIGINT NOT NULL,
  url TEXT NOT NULL,
  name TEXT NOT NULL,
  filter TEXT NOT NULL,
  secret TEXT NOT NULL,
  status TEXT NOT NULL,
  last_error TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX webhooks_by_account ON webhooks (account_id, status);
CREATE TABLE webhook_deliveries (
  id ${autoId},
  account_id BIGINT NOT NULL,
  webhook_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL,
  lease_token TEXT,
  payload TEXT,
  created_at BIGINT NOT NULL,
  UNIQUE (webhook_id, call_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_account ON webhook_deliveries (account_id, id);
CREATE TABLE webhook_attempts (
  delivery_id BIGINT NOT NULL,
  n INTEGER NOT NULL,
  account_id BIGINT NOT NULL,
  at BIGINT NOT NULL,
  http_status INTEGER,
  duration_ms INTEGER NOT NULL,
  error TEXT,
  response TEXT,
  PRIMARY KEY (delivery_id, n)
);`;
  },
};
