import { columnTypes, type Migration } from '../migrate.js';

/**
 * The webhook outbox as the ingest path writes it: one row per ingest
 * transaction and subscription, holding the ended calls' ids as a JSON
 * array, in a table without secondary indexes. One row per call in
 * `webhook_deliveries` (four B-trees) cost 4.7 µs of CPU per ended call on
 * SQLite, about 15 % of ingest; this costs one small insert per batch. The
 * delivery worker (and the delivery log, before it reads) moves these rows
 * into `webhook_deliveries` in one transaction, so nothing acknowledged is
 * lost in between.
 */
export const migration: Migration = {
  id: '120_webhook_outbox',
  up(d) {
    const { autoId } = columnTypes(d);
    return `
CREATE TABLE webhook_outbox (
  id ${autoId},
  account_id BIGINT NOT NULL,
  webhook_id BIGINT NOT NULL,
  call_ids TEXT NOT NULL,
  created_at BIGINT NOT NULL
);`;
  },
};
