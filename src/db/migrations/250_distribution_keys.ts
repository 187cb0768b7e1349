import type { Migration } from '../migrate.js';

/**
 * Every key of a tenant table includes `account_id` (docs/deployment.md,
 * "Growing past one PostgreSQL"): what Citus needs to distribute the tables
 * by account, checked over the catalog by
 * test/integration/distribution-ready.test.ts.
 *
 * PostgreSQL: the primary keys that were a serial id alone become
 * `(account_id, id)` (the id stays unique through its identity sequence),
 * `agent_groups` and `webhook_attempts` gain `account_id` in front of theirs,
 * and `webhook_deliveries`' (webhook, call) unique key gains it too; the
 * separate `(account_id, id)` index of `webhook_deliveries` is the primary
 * key now and goes. Every statement on these tables names the account, so
 * each still finds its row by the key.
 *
 * SQLite keeps its rowid keys (one database, nothing to distribute); it
 * gains the `(account_id, agent_id, group_id)` unique index that
 * Agent/updateAgentGroupMapping's ON CONFLICT names on both databases.
 */
export const migration: Migration = {
  id: '250_distribution_keys',
  up(d) {
    if (d === 'sqlite') return 'CREATE UNIQUE INDEX agent_groups_by_account ON agent_groups (account_id, agent_id, group_id);';
    return `
ALTER TABLE agents DROP CONSTRAINT agents_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE roles DROP CONSTRAINT roles_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE audit_log DROP CONSTRAINT audit_log_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE webhook_outbox DROP CONSTRAINT webhook_outbox_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX webhook_deliveries_by_account;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_id_call_id_key, ADD UNIQUE (account_id, webhook_id, call_id);
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey, ADD PRIMARY KEY (account_id, delivery_id, n);
ALTER TABLE agent_groups DROP CONSTRAINT agent_groups_pkey, ADD PRIMARY KEY (account_id, agent_id, group_id);
`;
  },
};
